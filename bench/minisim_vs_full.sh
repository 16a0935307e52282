#!/bin/bash
# MINISIM curves (`wafer curve --method minisim`) against full runs (`wafer sim`) at
# the same sizes: per policy and size, the miss ratio and the write-backs per access
# of both and their difference; then the wall time of the curve, of the full runs in
# one `wafer sim` process, and of the full runs one process per size.
#
#   bench/minisim_vs_full.sh TRACE [RATE] [POLICIES]   (default 0.01, arc,s3fifo,ts-clock)
# WAFER: the wafer binary (default: wafer on PATH).
set -euo pipefail
T=$1
RATE=${2:-0.01}
P=${3:-arc,s3fifo,ts-clock}
W=${WAFER:-wafer}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
"$W" curve -t "$T" --points 2 --csv "$out/fp.csv" >/dev/null
fp=$(python3 -c "import csv; print(max(int(r['cache_pages']) for r in csv.DictReader(open('$out/fp.csv'))))")
SIZES=$(python3 - "$fp" "$RATE" <<'PY'
import math, sys
fp, rate = int(sys.argv[1]), float(sys.argv[2])
lo = math.ceil(1 / rate)
print(",".join(f"{x}p" for x in sorted({round(math.exp(math.log(lo) + (math.log(fp) - math.log(lo)) * i / 11)) for i in range(12)})))
PY
)
echo "trace $T: footprint $fp pages, rate $RATE, policies $P"
echo "sizes $SIZES"
tc=$(wall "$W" curve -t "$T" -p "$P" --method minisim --rate "$RATE" --sizes "$SIZES" --csv "$out/m.csv")
s0=$(date +%s.%N)
"$W" sim -t "$T" -p "$P" -c "$SIZES" --csv --jobs 2 >"$out/s.csv"
ts=$(echo "$(date +%s.%N) - $s0" | bc)
t1=0
for s in ${SIZES//,/ }; do
  for p in ${P//,/ }; do
    t1=$(echo "$t1 + $(wall "$W" sim -t "$T" -p "$p" -c "$s")" | bc)
  done
done
python3 - "$out" <<'PY'
import csv, sys
d = sys.argv[1]
m = {(r["policy"], int(r["cache_pages"])): r for r in csv.DictReader(open(f"{d}/m.csv"))}
s = {}
for r in csv.DictReader(open(f"{d}/s.csv")):
    s[(r["policy"], int(r["capacity_pages"]))] = r
def mr(r): return float(r["miss_ratio"]) if "miss_ratio" in r else 1 - float(r["hit_ratio"])
def wb(r): return float(r["page_writes"]) / float(r["accesses"])
print(f"{'policy':10s} {'size':>9s} {'miss full':>9s} {'minisim':>8s} {'diff':>7s} {'wb/acc full':>11s} {'minisim':>8s} {'diff':>7s}")
per = {}
for k in sorted(m):
    if k not in s: print("missing full run", k); continue
    a, b = s[k], m[k]
    dm, dw = (mr(b) - mr(a)) * 100, (wb(b) - wb(a)) * 100
    per.setdefault(k[0], []).append((abs(dm), abs(dw)))
    print(f"{k[0]:10s} {k[1]:9d} {mr(a):9.4f} {mr(b):8.4f} {dm:+7.2f} {wb(a):11.4f} {wb(b):8.4f} {dw:+7.2f}")
for p, e in per.items():
    print(f"{p}: MAE miss ratio {sum(x for x,_ in e)/len(e):.3f} points (max {max(x for x,_ in e):.3f}), write-backs per access {sum(y for _,y in e)/len(e):.3f} points (max {max(y for _,y in e):.3f})")
PY
echo "wall: minisim curve $tc s; full runs in one wafer sim (--jobs 2) $ts s; full runs one process per cell $t1 s"
