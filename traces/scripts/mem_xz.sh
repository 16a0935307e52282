#!/bin/sh
# Memory trace for `traces/mem-xz.wtr`: xz compressing 48 KiB of generated text,
# every load and store seen by Valgrind's lackey and filtered through a 256 KiB,
# 8-way, 64 B-line write-back CPU cache (`--cpu-cache`), as paper 002 did.
#
# Usage: sh traces/scripts/mem_xz.sh [OUT.wtr]     (as root; WAFER=path/to/wafer)
# The input is seeded (words of 2-9 letters drawn from a 2000-word vocabulary),
# so every run compresses the same bytes with the same preset (-6).
set -eu
WAFER=${WAFER:-wafer}
OUT=${1:-traces/mem-xz.wtr}
PKGS="valgrind xz-utils python3"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-upgrade $PKGS || { apt-get update && apt-get install -y $PKGS; }
T=$(mktemp -d)
python3 - "$T/in.txt" <<'PY'
import random, sys
r = random.Random(5)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
         for _ in range(2000)]
text = "".join(" ".join(r.choice(words) for _ in range(12)) + "\n" for _ in range(1000))
open(sys.argv[1], "w").write(text[:48 * 1024])
PY
"$WAFER" trace capture --memory --cpu-cache 256KiB:8:64 -o "$OUT" -- xz -6 -k "$T/in.txt"
rm -rf "$T"
