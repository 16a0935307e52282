#!/bin/bash
# A streamed grid whose cells share passes over the trace: 8 policies x 2 cache sizes
# over REQUESTS generated zipf requests (never stored; `stream = true`), `wafer run`
# with an output folder (so one counting pass gathers the trace's facts first) at
# `-j 2`. With BEFORE=<an older wafer binary> that binary runs the same experiment
# too, rounds interleaved, for a side-by-side figure. Prints wall, user+sys and max
# RSS (/usr/bin/time) of each run, `uptime` before and after, and what wafer said
# about sharing.
#
#   WAFER=target/release/wafer [BEFORE=/path/to/old/wafer] bench/shared_pass.sh [REQUESTS] [ROUNDS]
set -euo pipefail
N=${1:-20000000}
ROUNDS=${2:-2}
W=${WAFER:-wafer}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat > "$d/grid.toml" <<TOML
name = "shared pass"
traces = [{ gen = { kind = "zipf", requests = $N, footprint = "4GiB", theta = 0.8, write_ratio = 0.3, seed = 2 }, name = "zipf" }]
policies = ["lru", "fifo", "clock", "sieve", "arc", "lirs", "s3fifo", "2q"]
cache_sizes = ["1%", "10%"]
stream = true
[outputs]
figures = []
report = false
TOML
bins=("after=$W")
[ -n "${BEFORE:-}" ] && bins=("before=$BEFORE" "${bins[@]}")
uptime
for r in $(seq "$ROUNDS"); do
  for b in "${bins[@]}"; do
    name=${b%%=*}; bin=${b#*=}
    rm -rf "$d/out"
    /usr/bin/time -f "%e %U %S %M" -o "$d/t" "$bin" run "$d/grid.toml" -o "$d/out" -j 2 >/dev/null 2>"$d/err"
    read -r wall user sys rss < "$d/t"
    echo "$name round $r: wall $wall s, cpu $(python3 -c "print(round($user + $sys, 2))") s, max RSS $((rss / 1024)) MiB"
    grep -i "share" "$d/err" | sed 's/^/  said: /' | head -2 || true
  done
done
uptime
