#!/usr/bin/env bash
# Page-level greedy FTL against sssl-ftlsim (P. Desnoyers' FTL simulator,
# Northeastern University, 2012; github.com/pjd-nu/sssl-ftlsim at 48294f5), whole process, side by side: uniform random 4 KiB writes (default
# 16,777,216: four times the logical pages) over 16 GiB on an empty device of 256-page
# blocks and 15% over-provisioning (18,842 physical blocks), greedy cleaning with one
# write frontier. The peer runs bench/sssl_ftlsim_greedy.py (GC trigger matched to
# wafer's GC_RESERVE); the WAFs agree to the noise of tie-breaking between equally
# full victims, not to the page.
#
# sssl-ftlsim is built outside this repository (Python extensions through SWIG, so
# `swig` installed; its setup.py imports distutils: Python 3.11 or setuptools):
#   git clone https://github.com/pjd-nu/sssl-ftlsim /tmp/peers/sssl-ftlsim
#   (cd /tmp/peers/sssl-ftlsim && CFLAGS=-O3 python3 setup.py build_ext --inplace)
# Usage: bench/ftl_vs_sssl.sh [OUT_DIR]
#   SSSL_DIR (default /tmp/peers/sssl-ftlsim), WAFER (default target/release/wafer),
#   WAFER_BEFORE (an older binary, run beside the others when set), REQUESTS, RUNS
#   (default 3). Each tool reads its own format: wafer the trace as .wtr and as CSV,
#   the peer one "page 1" line per write. Prints the load (uptime) before each run
#   and user+sys CPU seconds, wall seconds, peak memory and the WAF of each.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-/tmp/ftl_vs_sssl}
SSSL_DIR=${SSSL_DIR:-/tmp/peers/sssl-ftlsim}
WAFER=${WAFER:-$ROOT/target/release/wafer}
WAFER_BEFORE=${WAFER_BEFORE:-}
REQUESTS=${REQUESTS:-16777216}
RUNS=${RUNS:-3}
LOGICAL=4194304
NP=256
BLOCKS=18842

ls "$SSSL_DIR"/_ftlsim*.so > /dev/null 2>&1 || { echo "error: no built sssl-ftlsim in $SSSL_DIR (build it there first)" >&2; exit 1; }
[ -x "$WAFER" ] || { echo "error: no wafer binary at $WAFER (cargo build --release -p wafer-cli)" >&2; exit 1; }
mkdir -p "$OUT"
cat > "$OUT/page16.toml" <<TOML
name = "page-16g-256"
ftl = "page"
capacity = "16GiB"
physical_blocks = $BLOCKS
page_size = "4KiB"
pages_per_block = $NP
cell = "mlc"
read_us = 50.0
program_us = 600.0
erase_us = 3000.0
victim = "greedy"
TOML
if [ ! -s "$OUT/u.pages" ]; then
  "$WAFER" trace gen uniform --seed 1 --requests "$REQUESTS" --footprint 16GiB \
    --write-ratio 1 --size 4KiB -o "$OUT/u.wtr" > /dev/null
  "$WAFER" trace convert "$OUT/u.wtr" "$OUT/u.csv" > /dev/null
  awk -F, 'NR > 1 { print $4 / 4096, 1 }' "$OUT/u.csv" > "$OUT/u.pages"
fi

# run LABEL CMD...: one timed run; prints "LABEL cpu wall peak_KB waf (load)".
run() {
  local label=$1 load
  shift
  load=$(uptime | sed 's/.*load average: //')
  /usr/bin/time -f "%U %S %e %M" -o "$OUT/time" "$@" > "$OUT/out" 2> "$OUT/err"
  read -r user sys wall kb < "$OUT/time"
  waf=$(grep -o '"waf": [0-9.]*\|waf [0-9.]*' "$OUT/out" | head -1 | grep -o '[0-9.]*$')
  printf '%-22s cpu %6.2f s  wall %6.2f s  %8d KB  waf %s  (load %s)\n' \
    "$label" "$(echo "$user + $sys" | bc)" "$wall" "$kb" "$waf" "$load"
}

for i in $(seq "$RUNS"); do
  echo "# run $i"
  run "wafer .wtr" "$WAFER" ftl -t "$OUT/u.wtr" -d "$OUT/page16.toml" --json
  run "wafer .csv" "$WAFER" ftl -t "$OUT/u.csv" -d "$OUT/page16.toml" --json
  if [ -n "$WAFER_BEFORE" ]; then
    run "wafer-before .wtr" "$WAFER_BEFORE" ftl -t "$OUT/u.wtr" -d "$OUT/page16.toml" --json
    run "wafer-before .csv" "$WAFER_BEFORE" ftl -t "$OUT/u.csv" -d "$OUT/page16.toml" --json
  fi
  run "sssl-ftlsim" env PYTHONPATH="$SSSL_DIR" python3 "$ROOT/bench/sssl_ftlsim_greedy.py" \
    "$OUT/u.pages" "$LOGICAL" "$NP" "$BLOCKS" "$REQUESTS"
done
