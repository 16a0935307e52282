#!/bin/sh
# Memory trace for `traces/mem-sort.wtr`: GNU sort ordering 20000 generated lines by
# their second field, every load and store seen by Valgrind's lackey and filtered
# through a 256 KiB, 8-way, 64 B-line write-back CPU cache (`--cpu-cache`), as paper
# 002 did.
#
# Usage: sh traces/scripts/mem_sort.sh [OUT.wtr]     (as root; WAFER=path/to/wafer)
# Seeded input ("NNNNNNNN word" lines, words of 5-40 letters from a-j); one sort
# thread (--parallel=1), a fixed 4 MiB buffer and the C locale, so the run is the
# same every time.
set -eu
WAFER=${WAFER:-wafer}
OUT=${1:-traces/mem-sort.wtr}
PKGS="valgrind coreutils python3"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-upgrade $PKGS || { apt-get update && apt-get install -y $PKGS; }
T=$(mktemp -d)
python3 - "$T/lines.txt" <<'PY'
import random, sys
r = random.Random(9)
with open(sys.argv[1], "w") as f:
    for _ in range(20000):
        f.write("%08d %s\n" % (r.randrange(10**8),
                               "".join(r.choice("abcdefghij") for _ in range(r.randint(5, 40)))))
PY
LC_ALL=C "$WAFER" trace capture --memory --cpu-cache 256KiB:8:64 -o "$OUT" -- \
    sort --parallel=1 -S 4M -k2 -o "$T/sorted.txt" "$T/lines.txt"
rm -rf "$T"
