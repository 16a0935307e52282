"""Write a trace as libCacheSim's oracleGeneral binary, one record per 4 KiB page.

Reads the CSV that `wafer trace convert IN OUT.csv` writes and expands every read
or write request into its pages, so that libCacheSim's `cachesim` sees the accesses
`wafer sim`/`wafer curve` see with their default 4 KiB page granularity. Object id:
device << 32 | page number (below 2^44, which wafer's reader requires); size 4096;
next-access time -1 (LRU and CLOCK do not use it). libCacheSim has no trim, so the
script refuses a trace with one.

    python3 bench/oracle_general.py trace.csv trace.oracleGeneral.bin
"""

import csv
import os
import struct
import sys

PAGE = 4096


def main(src: str, dst: str) -> None:
    rec = struct.Struct("<IQIq")
    n = 0
    with open(src, newline="") as f, open(dst + ".tmp", "wb") as out:
        rows = csv.DictReader(f)
        for row in rows:
            op = row["op"]
            if op not in ("R", "W"):
                sys.exit(f"{src}:{rows.line_num}: op {op!r}: only reads and writes")
            off, length = int(row["offset"]), int(row["len"])
            dev = int(row["dev"])
            t = int(row["time_ns"]) // 1_000_000_000 if row["time_ns"] else 0
            first, last = off // PAGE, (off + max(length, 1) - 1) // PAGE
            for page in range(first, last + 1):
                if page >= 1 << 32 or dev >= 1 << 12:
                    sys.exit(f"{src}:{rows.line_num}: device {dev}, page {page}: over 44 bits")
                out.write(rec.pack(t & 0xFFFFFFFF, (dev << 32) | page, PAGE, -1))
                n += 1
    os.replace(dst + ".tmp", dst)
    print(f"{dst}: {n} page accesses")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
