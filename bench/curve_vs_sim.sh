#!/usr/bin/env bash
# The exact LRU curve (hits and write-backs at every size, `wafer curve --method exact`)
# against one LRU run at one size (`wafer sim -p lru -c 5%`), whole process, side by
# side on each trace given: user+sys CPU seconds (and wall) of each, best of RUNS, and
# their ratio. The machine is shared: the load (uptime) is printed before each trace.
# Usage: bench/curve_vs_sim.sh TRACE...   WAFER (default target/release/wafer), RUNS (3)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WAFER=${WAFER:-$ROOT/target/release/wafer}
RUNS=${RUNS:-3}
[ $# -gt 0 ] || { echo "usage: $0 TRACE..." >&2; exit 2; }
[ -x "$WAFER" ] || { echo "error: no wafer binary at $WAFER (cargo build --release -p wafer-cli)" >&2; exit 1; }
T=$(mktemp)
trap 'rm -f "$T"' EXIT

# best CMD...: the smallest user+sys of RUNS runs, and that run's wall seconds.
best() {
  local b="" w=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%U %S %e" -o "$T" "$@" > /dev/null
    read -r user sys wall < "$T"
    c=$(echo "$user + $sys" | bc)
    if [ -z "$b" ] || [ "$(echo "$c < $b" | bc)" = 1 ]; then b=$c; w=$wall; fi
  done
  echo "$b $w"
}

echo "| trace | load | sim lru 5%: cpu (wall) | curve exact: cpu (wall) | cpu ratio |"
echo "|---|---|---|---|---|"
for trace in "$@"; do
  load=$(uptime | sed 's/.*load average: //')
  read -r sc sw <<< "$(best "$WAFER" sim -t "$trace" -p lru -c 5%)"
  read -r cc cw <<< "$(best "$WAFER" curve -t "$trace" --method exact --csv /dev/null)"
  printf '| %s | %s | %.2f s (%.2f) | %.2f s (%.2f) | %.1fx |\n' "$(basename "$trace")" "$load" \
    "$sc" "$sw" "$cc" "$cw" "$(echo "scale=3; $cc / $sc" | bc)"
done
