#!/bin/bash
# LRU miss-ratio curves of one page-level oracleGeneral trace (bench/oracle_general.py)
# by libCacheSim's cachesim (exact, and --sample-ratio at the sizes times the rate)
# and by `wafer curve` (exact; SHARDS with and without the exact head), at 20 sizes
# log-spaced from 1/rate pages to the footprint; prints wall time, max RSS and the
# mean absolute error of each curve against wafer's exact one.
#
#   bench/curve_vs_libcachesim.sh TRACE.oracleGeneral.bin [RATE]
# Needs CACHESIM (path of libCacheSim's cachesim) and WAFER (default: wafer on PATH).
set -euo pipefail
T=$1
RATE=${2:-0.01}
W=${WAFER:-wafer}
C=${CACHESIM:?set CACHESIM to libCacheSim\'s cachesim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# tm LOG CMD...: run CMD with its output to LOG; print its wall time and max RSS.
tm() { local log=$1; shift; /usr/bin/time -f "%e %M" -o "$out/time" "$@" >"$log" 2>&1; read -r s kb <"$out/time"; printf "%8.2f s %7.1f MiB" "$s" "$(echo "$kb/1024" | bc -l)"; }
fmt=(--format oracle-general --granularity record)
"$W" curve -t "$T" "${fmt[@]}" --points 2 --csv "$out/fp.csv" >/dev/null
fp=$(python3 -c "import csv,sys; print(max(int(r['cache_pages']) for r in csv.DictReader(open('$out/fp.csv'))))")
read -r SIZES SCALED WS < <(python3 - "$fp" "$RATE" <<'PY'
import math, sys
fp, rate = int(sys.argv[1]), float(sys.argv[2])
lo = math.ceil(1 / rate)
s = sorted({round(math.exp(math.log(lo) + (math.log(fp) - math.log(lo)) * i / 19)) for i in range(20)})
print(",".join(map(str, s)), ",".join(str(max(1, round(x * rate))) for x in s), ",".join(f"{x}p" for x in s))
PY
)
echo "trace $T: footprint $fp pages, rate $RATE, sizes $SIZES"
lcs() { grep -o "cache size *[0-9]*, [0-9]* req, miss ratio [0-9.]*" "$1" | awk '{print $3, $8}' | tr -d ,; }
printf "%-44s" "cachesim lru, exact"; tm "$out/lx.txt" "$C" "$T" oracleGeneral lru "$SIZES" --ignore-obj-size 1; echo
printf "%-44s" "cachesim lru, --sample-ratio $RATE"; tm "$out/ls.txt" "$C" "$T" oracleGeneral lru "$SCALED" --ignore-obj-size 1 --sample-ratio "$RATE"; echo
printf "%-44s" "wafer curve --method exact"; tm /dev/null "$W" curve -t "$T" "${fmt[@]}" --method exact --sizes "$WS" --csv "$out/wx.csv"; echo
printf "%-44s" "wafer curve --method shards"; tm /dev/null "$W" curve -t "$T" "${fmt[@]}" --method shards --rate "$RATE" --sizes "$WS" --csv "$out/ws.csv"; echo
printf "%-44s" "wafer curve --method shards --exact-head 0"; tm /dev/null "$W" curve -t "$T" "${fmt[@]}" --method shards --rate "$RATE" --exact-head 0 --sizes "$WS" --csv "$out/w0.csv"; echo
lcs "$out/lx.txt" >"$out/lx"
lcs "$out/ls.txt" >"$out/ls"
python3 - "$out" "$RATE" <<'PY'
import csv, sys
d, rate = sys.argv[1], float(sys.argv[2])
def wafer(p):
    return [float(r["miss_ratio"]) for r in csv.DictReader(open(f"{d}/{p}"))]
def lcs(p):
    return [float(l.split()[1]) for l in open(f"{d}/{p}")]
ex = wafer("wx.csv")
for name, c in [("cachesim exact", lcs("lx")), ("cachesim sampled", lcs("ls")),
                ("wafer shards", wafer("ws.csv")), ("wafer shards, no head", wafer("w0.csv"))]:
    if len(c) != len(ex):
        print(f"{name}: {len(c)} sizes, expected {len(ex)}"); continue
    e = [abs(a - b) * 100 for a, b in zip(c, ex)]
    print(f"MAE vs wafer exact, {name:24s} {sum(e)/len(e):6.3f} points (max {max(e):.3f})")
PY
