"""What the device did with each cell's write-backs: the table behind docs/findings.md.

For each cell of a `wafer run` / `wafer reproduce` results.csv (optionally only some
policies or devices), print the pages the cache wrote, the write requests they made,
FAST's switch / partial / full merges, erases and the elapsed time of the replay, so
that a claim's verdict can be traced to the mechanism that decides it.

    python3 bench/merges.py wafer-out/ts-clock/results.csv --policies ts-clock,cflru
    python3 bench/merges.py RESULTS.csv --device microsd-16g --trace dbench
"""

import argparse
import csv
import sys

COLUMNS = [
    ("pages", "page_writes"),
    ("reqs", "write_ios"),
    ("at end", "writes_at_end"),
    ("switch", "ftl_switch_merges"),
    ("partial", "ftl_partial_merges"),
    ("full", "ftl_full_merges"),
    ("erases", "ftl_erases"),
    ("elapsed s", "ftl_elapsed_ns"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results.csv of a run")
    ap.add_argument("--policies", help="comma-separated policy labels (default: all)")
    ap.add_argument("--device", help="device label (default: all)")
    ap.add_argument("--trace", help="trace label (default: all)")
    a = ap.parse_args()
    keep = set(a.policies.split(",")) if a.policies else None
    try:
        with open(a.results, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"merges.py: {a.results}: {e.strerror}", file=sys.stderr)
        return 1
    if rows and "ftl_erases" not in rows[0]:
        print(f"merges.py: {a.results}: no device columns (a cache-only run?)", file=sys.stderr)
        return 1
    rows = [
        r
        for r in rows
        if (keep is None or r["policy"] in keep)
        and (a.device is None or r["device"] == a.device)
        and (a.trace is None or r["trace"] == a.trace)
    ]
    head = ["trace", "cache", "device", "policy"] + [c for c, _ in COLUMNS]
    print("\t".join(head))
    for r in rows:
        vals = []
        for name, col in COLUMNS:
            v = r.get(col, "")
            if name == "elapsed s" and v:
                v = f"{int(v) / 1e9:.2f}"
            vals.append(v)
        print("\t".join([r["trace"], r["cache"], r["device"], r["policy"]] + vals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
