#!/bin/bash
# Sampled LRU miss-ratio curves of one oracleGeneral trace, side by side: libCacheSim's
# mrcProfiler (SHARDS, fixed rate) and `wafer curve --method shards` (with its exact
# head and without), at RATE, over SEEDS hash seeds, at 40 sizes log-spaced from 1
# object to the footprint. Prints per run the wall time and the mean absolute error
# of the miss ratio against wafer's exact curve (points), then medians per method.
#
#   bench/shards_vs_mrcprofiler.sh TRACE.oracleGeneral.bin RATE [SEEDS]
# MRCPROFILER: path of libCacheSim's mrcProfiler; WAFER: wafer (default: on PATH).
# wafer reads TRACE converted to TRACE.wtr with its prepared file beside it (made
# here once if missing: `wafer trace convert`, `wafer trace prepare`).
set -euo pipefail
T=$1
RATE=$2
SEEDS=${3:-5}
W=${WAFER:-wafer}
M=${MRCPROFILER:?set MRCPROFILER to libCacheSim\'s mrcProfiler}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
WTR=${T%.bin}.wtr
g=(--granularity record)
[[ -f $WTR ]] || "$W" trace convert "$T" "$WTR" --format oracle-general >/dev/null
[[ -f $WTR.wprep ]] || "$W" trace prepare "$WTR" "${g[@]}" >/dev/null
"$W" curve -t "$WTR" "${g[@]}" --points 2 --csv "$out/fp.csv" >/dev/null
fp=$(python3 -c "import csv; print(max(int(r['cache_pages']) for r in csv.DictReader(open('$out/fp.csv'))))")
read -r BYTES PAGES < <(python3 - "$fp" <<'PY'
import math, sys
fp = int(sys.argv[1])
n = 40
s = []
while len(s) < 40:  # 40 distinct sizes (rounding merges the smallest)
    s = sorted({max(1, round(math.exp(math.log(fp) * i / (n - 1)))) for i in range(n)})
    n += 1
print(",".join(f"{x}B" for x in s), ",".join(f"{x}p" for x in s))
PY
)
"$W" curve -t "$WTR" "${g[@]}" --method exact --sizes "$PAGES" --csv "$out/x.csv" >/dev/null
# tm NAME CMD...: run CMD, stdout to $out/NAME; its wall time to $out/NAME.time.
tm() {
  local n=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out/$n.time" "$@" >"$out/$n" 2>/dev/null
}
for s in $(seq 1 "$SEEDS"); do
  tm "m$s" "$M" "$T" oracleGeneral --algo=LRU --profiler=SHARDS \
    --profiler-params="FIX_RATE,$RATE,$s" --ignore-obj-size --size="$BYTES"
  tm "h$s" "$W" curve -t "$WTR" "${g[@]}" --method shards --rate "$RATE" --seed "$s" \
    --sizes "$PAGES" --csv "$out/h$s.csv"
  tm "n$s" "$W" curve -t "$WTR" "${g[@]}" --method shards --rate "$RATE" --seed "$s" \
    --exact-head 0 --sizes "$PAGES" --csv "$out/n$s.csv"
done
python3 - "$out" "$SEEDS" "$T" "$RATE" "$fp" <<'PY'
import csv, statistics, sys
d, seeds, t, rate, fp = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
ex = [float(r["miss_ratio"]) for r in csv.DictReader(open(f"{d}/x.csv"))]
def wafer(p):
    return [float(r["miss_ratio"]) for r in csv.DictReader(open(p))]
def mrc(p):
    rows = [l.split() for l in open(p)]
    i = next(i for i, r in enumerate(rows) if r[:2] == ["cache_size", "miss_rate"])
    return [float(r[1]) for r in rows[i + 1:] if len(r) >= 2]
print(f"{t}: footprint {fp}, rate {rate}, {len(ex)} sizes, {seeds} seeds")
for key, name, read in [("m", "mrcProfiler SHARDS", lambda s: mrc(f"{d}/m{s}")),
                        ("h", "wafer shards (exact head)", lambda s: wafer(f"{d}/h{s}.csv")),
                        ("n", "wafer shards --exact-head 0", lambda s: wafer(f"{d}/n{s}.csv"))]:
    errs, walls, rss = [], [], []
    for s in range(1, seeds + 1):
        c = read(s)
        assert len(c) == len(ex), f"{name} seed {s}: {len(c)} sizes, expected {len(ex)}"
        errs.append(sum(abs(a - b) for a, b in zip(c, ex)) * 100 / len(ex))
        w, kb = open(f"{d}/{key}{s}.time").read().split()
        walls.append(float(w)); rss.append(int(kb) / 1024)
    print(f"  {name:28s} MAE mean {statistics.mean(errs):.3f} points (seeds: "
          + " ".join(f"{e:.2f}" for e in errs) + f"); wall median {statistics.median(walls):.3f} s (runs: "
          + " ".join(f"{w:.2f}" for w in walls) + f"); max RSS {max(rss):.0f} MiB")
PY
