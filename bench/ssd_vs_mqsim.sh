#!/usr/bin/env bash
# The timed SSD against MQSim (A. Tavakkol, J. Gomez-Luna, M. Sadrosadati, S. Ghose,
# O. Mutlu, "MQSim: A Framework for Enabling Realistic Studies of Modern Multi-Queue
# SSD Devices", USENIX FAST 2018) on a read/write mix sweep: reads 0/30/70/100%, three
# Poisson arrival rates, 4 and 16 KiB requests, uniform over 1 GiB. Both simulators
# run the same DiskSim ASCII file (times in ns) with the configurations matched as in
# docs/ssd.md, "Agreement with MQSim": MQSim's shipped ssdconfig.xml with
# Ideal_Mapping_Table true and the trace-based scenario of its workload.xml alone;
# wafer with examples/devices/mqsim-ssdconfig.toml and MQSim's channel, PCIe and DRAM
# times, 512 commands in the device, a 256 MiB fully associative cache without APU.
#
# MQSim is built outside this repository:
#   git clone https://github.com/CMU-SAFARI/MQSim /tmp/peers/MQSim
#   (cd /tmp/peers/MQSim && git checkout 7ec40e3 && make)
# Usage: bench/ssd_vs_mqsim.sh [OUT_DIR]
#   MQSIM_DIR (default /tmp/peers/MQSim), WAFER (default target/release/wafer),
#   REQUESTS per cell (default 100000), RATES (IOPS, default "5000 15000 30000"),
#   READS (percent, default "0 30 70 100"), SIZES (default "4KiB 16KiB").
# Prints a markdown table (times in ms; MQSim reports whole microseconds and no
# percentiles, so its maximum stands beside wafer's p99) and writes OUT_DIR/sweep.csv.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-/tmp/ssd_vs_mqsim}
MQSIM_DIR=${MQSIM_DIR:-/tmp/peers/MQSim}
WAFER=${WAFER:-$ROOT/target/release/wafer}
REQUESTS=${REQUESTS:-100000}
RATES=${RATES:-"5000 15000 30000"}
READS=${READS:-"0 30 70 100"}
SIZES=${SIZES:-"4KiB 16KiB"}

[ -x "$MQSIM_DIR/MQSim" ] || { echo "error: no MQSim binary in $MQSIM_DIR (build it there first)" >&2; exit 1; }
[ -x "$WAFER" ] || { echo "error: no wafer binary at $WAFER (cargo build --release -p wafer-cli)" >&2; exit 1; }
mkdir -p "$OUT"
sed 's|<Ideal_Mapping_Table>false|<Ideal_Mapping_Table>true|' "$MQSIM_DIR/ssdconfig.xml" > "$OUT/ssdconfig-ideal.xml"

# The trace-based scenario of MQSim's workload.xml alone, its file path replaced.
scenario() {
  python3 - "$MQSIM_DIR/workload.xml" "$1" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<IO_Scenario>\s*<IO_Flow_Parameter_Set_Trace_Based>.*?</IO_Scenario>', s, re.S)
t = re.sub(r'<File_Path>.*?</File_Path>', '<File_Path>%s</File_Path>' % sys.argv[2], m.group(0))
print('<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n' + t + '\n</MQSim_IO_Scenarios>')
EOF
}

echo "size,read_pct,iops,requests,mqsim_mean_ms,mqsim_max_ms,mqsim_s,wafer_mean_ms,wafer_p99_ms,wafer_max_ms,wafer_util,wafer_s" > "$OUT/sweep.csv"
echo "| size | reads | IOPS | MQSim mean | wafer mean | ratio | MQSim max | wafer p99 | wafer max | wafer util |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
  for rd in $READS; do
    for iops in $RATES; do
      cell="$OUT/$size-r$rd-$iops"
      gap_ns=$((1000000000 / iops))
      "$WAFER" trace gen uniform --write-ratio "$(python3 -c "print(1 - $rd / 100)")" \
        --arrival "poisson:${gap_ns}ns" --requests "$REQUESTS" --size "$size" \
        --footprint 1GiB --seed 1 -o "$cell.csv" > /dev/null
      # DiskSim ASCII: arrival_ns device sector sectors flags (1 = read).
      awk -F, 'NR > 1 { printf "%s %s %d %d %d\n", $1, $3, $4 / 512, $5 / 512, ($2 == "R") }' \
        "$cell.csv" > "$cell.trace"
      scenario "$cell.trace" > "$cell.xml"
      t0=$(date +%s.%N)
      (cd "$MQSIM_DIR" && ./MQSim -i "$OUT/ssdconfig-ideal.xml" -w "$cell.xml" > "$cell.mqsim.log" 2>&1)
      t1=$(date +%s.%N)
      "$WAFER" ssd -t "$cell.trace" -d "$ROOT/examples/devices/mqsim-ssdconfig.toml" \
        --cache-size 256MiB --ways full --apu off --t-bus 2496ns --t-cache 40986ns \
        --t-channel 24576ns --queue-depth 512 --json > "$cell.wafer.json"
      t2=$(date +%s.%N)
      python3 - "$cell" "$size" "$rd" "$iops" "$REQUESTS" "$t0" "$t1" "$t2" >> "$OUT/sweep.csv" <<'EOF'
import json, re, sys
cell, size, rd, iops, n, t0, t1, t2 = sys.argv[1:]
x = open(cell + '_scenario_1.xml').read()
def attr(name):
    return float(re.search(r'<%s>([0-9.]+)</%s>' % (name, name), x).group(1)) / 1000  # us -> ms
w = json.load(open(cell + '.wafer.json'))['report']
a = w['response']['all']
ms = lambda ns: ns / 1e6
print(','.join(str(v) for v in [size, rd, iops, n, attr('End_to_End_Request_Delay'),
      attr('Max_End_to_End_Request_Delay'), round(float(t1) - float(t0), 2),
      ms(a['mean_ns']), ms(a['p99_ns']), ms(a['max_ns']),
      round(w['timing']['utilisation'], 3), round(float(t2) - float(t1), 2)]))
EOF
      tail -1 "$OUT/sweep.csv" | awk -F, '{ printf "| %s | %s%% | %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.3f | %s |\n", $1, $2, $3, $5, $8, $8 / $5, $6, $9, $10, $11 }'
    done
  done
done
