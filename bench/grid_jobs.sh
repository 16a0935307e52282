#!/bin/bash
# The 56-cell grid (8 policies x 7 sizes, CloudPhysics x40 records, prepared file kept
# and mapped) at each `--jobs` of JOBS, rounds interleaved; wall, user+sys and max RSS
# from /usr/bin/time, `uptime` before and after, then each job count's median wall and
# its speed-up over `-j 1`. A wall-clock ratio means something only on an otherwise
# idle machine with at least max(JOBS) cores: check the load average printed.
#
#   WAFER=target/release/wafer JOBS="1 2" bench/grid_jobs.sh cp40.bin [ROUNDS]
#   JOBS="1 2 4 8 16" on a 16-core machine (2 -> 16 cores).
set -euo pipefail
BIN=$1
ROUNDS=${2:-3}
W=${WAFER:-wafer}
JOBS=${JOBS:-1 2}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$W" trace convert "$BIN" "$d/cp40.wtr" --format oracle-general >/dev/null
"$W" trace prepare "$d/cp40.wtr" --granularity record >/dev/null
GRID=(-t "$d/cp40.wtr" --granularity record -p lru,fifo,clock:insert_ref=0,sieve,arc,lirs,s3fifo,2q
  -c 1959p,9795p,19590p,39179p,97948p,195896p,391792p --csv)
nproc
uptime
for _ in $(seq "$ROUNDS"); do
  for j in $JOBS; do
    /usr/bin/time -f "$j %e %U %S %M" -a -o "$d/times" "$W" sim "${GRID[@]}" -j "$j" >/dev/null
  done
done
uptime
echo "jobs wall_s user_s sys_s max_rss_kb"
cat "$d/times"
python3 - "$d/times" <<'PY'
import sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    j, wall, user, sys_, rss = line.split()
    runs.setdefault(int(j), []).append((float(wall), float(user) + float(sys_), int(rss)))
one = st.median(r[0] for r in runs[min(runs)])
for j, rs in sorted(runs.items()):
    wall = st.median(r[0] for r in rs)
    print(f"-j {j}: median wall {wall:.2f} s, cpu {st.median(r[1] for r in rs):.2f} s, "
          f"max RSS {max(r[2] for r in rs) / 1024:.0f} MiB, speed-up over -j {min(runs)} {one / wall:.2f}x")
PY
