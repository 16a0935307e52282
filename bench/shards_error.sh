#!/bin/bash
# Error of `wafer curve --method shards` against `--method exact` on one trace, at
# the exact curve's 100 log-spaced sizes (1 page to the footprint): mean absolute
# error of the miss ratio and of write-backs per access, in points, over all sizes
# and over the sizes beyond the exact head; with the default head and without one.
#
#   bench/shards_error.sh TRACE [RATE] [wafer curve options...]
# WAFER: the wafer binary (default: wafer on PATH).
set -euo pipefail
T=$1
RATE=${2:-0.01}
shift $(( $# < 2 ? $# : 2 ))
W=${WAFER:-wafer}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$W" curve -t "$T" --method exact --csv "$out/x.csv" "$@" >/dev/null
S=$(python3 -c "import csv; print(','.join(r['cache_pages'] + 'p' for r in csv.DictReader(open('$out/x.csv'))))")
HEAD=$(python3 -c "import math; print(min(65536, math.ceil(100 / $RATE)))")
"$W" curve -t "$T" --method shards --rate "$RATE" --sizes "$S" --csv "$out/h.csv" "$@" >/dev/null
"$W" curve -t "$T" --method shards --rate "$RATE" --exact-head 0 --sizes "$S" --csv "$out/n.csv" "$@" >/dev/null
python3 - "$out" "$HEAD" "$T" <<'PY'
import csv, sys
d, head, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
load = lambda p: {int(r["cache_pages"]): r for r in csv.DictReader(open(f"{d}/{p}"))}
x = load("x.csv")
mr = lambda r: float(r["miss_ratio"])
wb = lambda r: float(r["page_writes"]) / float(r["accesses"])
def mae(s, keys, f):
    e = [abs(f(x[k]) - f(s[k])) * 100 for k in keys]
    return f"{sum(e)/len(e):.3f} (max {max(e):.2f})" if e else "-"
fp = max(x)
print(f"{t}: footprint {fp} pages, {len(x)} sizes, {sum(1 for k in x if k > head)} beyond the head of {head}")
for name, p in [("shards, head", "h.csv"), ("shards, no head", "n.csv")]:
    s = load(p)
    ks = sorted(set(x) & set(s))
    far = [k for k in ks if k > head]
    print(f"  {name:16s} miss ratio: all {mae(s, ks, mr)}, beyond the head {mae(s, far, mr)};"
          f" write-backs/access: all {mae(s, ks, wb)}, beyond {mae(s, far, wb)}")
PY
