#!/bin/sh
# File-server workload for `traces/dbench.wtr`: dbench (the benchmark paper 000 ran for
# its file-server trace) with one client replaying its bundled NetBench load file
# (/usr/share/dbench/client.txt) exactly once.
#
# Usage: sh traces/scripts/dbench.sh [OUT.wtr]     (as root; WAFER=path/to/wafer)
# dbench runs for a time limit, rewinding the load file whenever it ends. To replay it
# exactly once, the script copies it with one more line, an unlink of a file that does
# not exist expecting success; that line fails, and dbench's client stops there
# ("ERROR: child 0 failed at line 458345"), after the load file's own final Deltree.
# The time limit (3600 s) is only a bound; the script checks that the client stopped
# at the sentinel line.
set -eu
WAFER=${WAFER:-wafer}
OUT=${1:-traces/dbench.wtr}
PKGS="dbench strace"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-upgrade $PKGS || { apt-get update && apt-get install -y $PKGS; }
T=$(mktemp -d)
mkdir "$T/dbench"
cp /usr/share/dbench/client.txt "$T/load.txt"
printf '%s\n' 'Unlink "\clients\client1\no-such-file" NT_STATUS_OK' >>"$T/load.txt"
LAST=$(wc -l <"$T/load.txt")
# dbench exits 1 when its client fails at the sentinel, so wafer does too.
"$WAFER" trace capture -o "$OUT" --include "$T/dbench/" -- \
    sh -c 'dbench -c "$1" -D "$2" -t 3600 1 >"$3" 2>&1' sh "$T/load.txt" "$T/dbench" "$T/dbench.out" || true
tail -n 4 "$T/dbench.out"
grep -q "child 0 failed at line $LAST\$" "$T/dbench.out" || { echo "dbench did not stop at the sentinel line $LAST" >&2; exit 1; }
rm -rf "$T"
