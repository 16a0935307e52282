#!/bin/sh
# File-server workload for `traces/postmark.wtr`: PostMark (NetApp's small-file
# mail/news/web-server benchmark, as in paper 004), seeded, fixed transaction count.
#
# Usage: sh traces/scripts/postmark.sh [OUT.wtr]     (as root; WAFER=path/to/wafer)
# 500 initial files of 512 B to 64 KiB in 10 subdirectories, then 8000 transactions
# (each a read or an append, 90% reads, then a create or a delete, 50/50), then the
# deletion of every file. Unbuffered I/O (read/write system calls) in 4 KiB blocks.
set -eu
WAFER=${WAFER:-wafer}
OUT=${1:-traces/postmark.wtr}
PKGS="postmark strace"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-upgrade $PKGS || { apt-get update && apt-get install -y $PKGS; }
T=$(mktemp -d)
mkdir "$T/pm"
cat >"$T/postmark.cfg" <<CFG
set location $T/pm
set number 500
set size 512 65536
set subdirectories 10
set read 4096
set write 4096
set buffering false
set bias read 9
set bias create 5
set seed 42
set transactions 8000
run
quit
CFG
"$WAFER" trace capture -o "$OUT" --include "$T/pm/" -- postmark "$T/postmark.cfg"
rm -rf "$T"
