#!/bin/bash
# A billion generated requests, never stored on disk, through one cell and through a
# small grid (LRU at 2 sizes, --jobs 2): `wafer run` on a uniform generator (1 GiB
# footprint, 4 KiB requests; the generator is most of the cost). The
# trace is far larger than a prepared trace may take in memory (about 17 bytes a
# request), so the grid streams it by itself and says so on stderr; with an output
# folder one counting pass gathers the trace's facts for the report first, then each
# cell generates the requests again. Prints wall, user+sys, max RSS (/usr/bin/time),
# `uptime` before and after, what wafer said, and requests per second of wall over
# every pass (the counting pass and one per cell).
#
#   WAFER=target/release/wafer bench/billion.sh [REQUESTS]
set -euo pipefail
N=${1:-1000000000}
W=${WAFER:-wafer}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
exp() { # file policies sizes
  cat > "$1" <<TOML
name = "billion"
traces = [{ gen = { kind = "uniform", requests = $N, footprint = "1GiB", write_ratio = 0.3, seed = 1 }, name = "uniform" }]
policies = [$2]
cache_sizes = [$3]
[outputs]
figures = []
report = false
TOML
}
exp "$d/one.toml" '"lru"' '"256MiB"'
exp "$d/grid.toml" '"lru"' '"256MiB", "512MiB"'
uptime
for e in one grid; do
  /usr/bin/time -f "%e %U %S %M" -o "$d/$e.time" "$W" run "$d/$e.toml" -o "$d/$e" -j 2 >"$d/$e.out" 2>"$d/$e.err" || { cat "$d/$e.err"; exit 1; }
  read -r wall user sys rss < "$d/$e.time"
  cells=$( [ "$e" = one ] && echo 1 || echo 2 )
  echo "$e ($cells cells): wall ${wall} s, cpu $(python3 -c "print(round($user + $sys, 1))") s, max RSS $((rss / 1024)) MiB"
  grep -v '^\s*$' "$d/$e.err" | grep -v -i "cells:" | sed 's/^/  said: /' | head -3
  python3 -c "print(f'  {($cells + 1) * $N / $wall / 1e6:.1f} M requests/s of wall over {$cells + 1} passes (counting + cells)')"
done
uptime
