#!/bin/bash
# One LRU cell on CloudPhysics x40 (records, 19,590 objects = 1 % of the keys), whole
# process, against libCacheSim's cachesim on the same requests: first contact (the
# `.wtr` decoded, densified and simulated in one process, no prepared file beside it),
# `--stream`, and over a kept prepared file (mapped). Rounds interleave the runs so
# that each sees the same load; every line is wall, user+sys and max RSS from
# /usr/bin/time, with `uptime` before and after. The last lines are the medians of
# cpu (user+sys) seconds and cachesim's cpu over each.
#
#   CACHESIM=/path/to/cachesim WAFER=target/release/wafer bench/first_contact.sh cp40.bin [ROUNDS]
# cp40.bin: `python3 bench/repeat_oracle.py ../shared/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin cp40.bin`
set -euo pipefail
BIN=$(realpath "$1")
ROUNDS=${2:-5}
W=$(realpath "$(command -v "${WAFER:-wafer}")")
C=${CACHESIM:?set CACHESIM to libCacheSim\'s cachesim binary}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$W" trace convert "$BIN" "$d/first.wtr" --format oracle-general >/dev/null
cp "$d/first.wtr" "$d/kept.wtr"
"$W" trace prepare "$d/kept.wtr" --granularity record >/dev/null
CELL=(--granularity record -p lru -c 19590p)
run() { # label command...
  /usr/bin/time -f "$1 %e %U %S %M" -a -o "$d/times" "${@:2}" >/dev/null 2>&1
}
cd "$d" # cachesim writes its result/ folder here
uptime
for _ in $(seq "$ROUNDS"); do
  run cachesim "$C" "$BIN" oracleGeneral lru 19590 --ignore-obj-size 1
  run first "$W" sim -t "$d/first.wtr" "${CELL[@]}"
  run stream "$W" sim -t "$d/first.wtr" "${CELL[@]}" --stream
  run prepared "$W" sim -t "$d/kept.wtr" "${CELL[@]}"
done
uptime
echo "run wall_s user_s sys_s max_rss_kb"
cat "$d/times"
python3 - "$d/times" <<'PY'
import sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    label, wall, user, sys_, rss = line.split()
    runs.setdefault(label, []).append((float(user) + float(sys_), float(wall), int(rss)))
c = st.median(r[0] for r in runs["cachesim"])
for label, rs in runs.items():
    cpu = st.median(r[0] for r in rs)
    print(f"{label}: median cpu {cpu:.3f} s, wall {st.median(r[1] for r in rs):.2f} s, "
          f"max RSS {max(r[2] for r in rs) / 1024:.0f} MiB, cachesim cpu / this {c / cpu:.1f}x")
PY
