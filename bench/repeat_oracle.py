#!/usr/bin/env python3
"""Repeat an oracleGeneral trace N times with disjoint working sets.

The benchmark trace of BENCHMARKS.md, "Instant single runs": the CloudPhysics
sample (113,872 requests, 48,974 keys) repeated 40 times is 4,554,880 requests over
1,958,960 keys, large enough that preparing the trace dominates a single run.

oracleGeneral records are `<IQIq`: u32 timestamp, u64 object id, u32 size, i64
next_access_vtime (index of the next request to the same object, -1 if none).
Repetition r adds r * OFFSET to every id (OFFSET a power of two above the largest
id, so the sets are disjoint and ids stay below wafer's 2^44 limit), r * N to every
next_access_vtime that is not -1 (it stays exact: no object crosses a repetition),
and r * (span + 1) to every timestamp, so clock times never go back.

Usage: repeat_oracle.py IN OUT [--times 40]
"""

import argparse
import os
import struct
import sys
import tempfile

REC = struct.Struct("<IQIq")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--times", type=int, default=40)
    a = ap.parse_args()
    with open(a.input, "rb") as f:
        data = f.read()
    if len(data) % REC.size:
        sys.exit(f"{a.input}: {len(data)} bytes is not a whole number of 24-byte records")
    recs = list(REC.iter_unpack(data))
    n = len(recs)
    offset = 1 << max(recs, key=lambda r: r[1])[1].bit_length()
    t0 = min(r[0] for r in recs)
    span = max(r[0] for r in recs) - t0 + 1
    if (a.times - 1) * offset >= 1 << 44 or t0 + a.times * span >= 1 << 32:
        sys.exit("too many repetitions: ids or timestamps would overflow")
    out = bytearray(REC.size * n * a.times)
    pos = 0
    for rep in range(a.times):
        dt, did, dv = rep * span, rep * offset, rep * n
        for t, oid, size, nxt in recs:
            REC.pack_into(out, pos, t + dt, oid + did, size, nxt + dv if nxt >= 0 else -1)
            pos += REC.size
    # Written beside the target and renamed, so a partial file never appears.
    d = os.path.dirname(os.path.abspath(a.output))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".repeat_oracle.")
    try:
        os.chmod(tmp, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(out)
        os.replace(tmp, a.output)
    except BaseException:
        os.unlink(tmp)
        raise
    keys = len({r[1] for r in recs}) * a.times
    print(f"{a.output}: {n * a.times} requests, {keys} keys", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
