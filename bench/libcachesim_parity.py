"""Miss counts of libCacheSim's policies (the `libcachesim` pip package) on an
oracleGeneral trace, unit size, one access per record, cold start: the numbers the
peer-parity tests (`crates/cache/tests/cache/parity_pip.rs`) compare wafer's with.

Run by hand, not in CI; libcachesim lives outside the repository:

    python3 -m venv /tmp/lcs && /tmp/lcs/bin/pip install libcachesim==0.3.5
    /tmp/lcs/bin/python bench/libcachesim_parity.py \\
        ../shared/traces/cloudphysics/cloudPhysicsIO.oracleGeneral.bin

Prints one line per policy: its libCacheSim name and the misses at each size (the
default sizes are those of the parity tests). `--policies S3FIFO,LRU` picks some.
"""

import argparse
import sys

import libcachesim as lcs
from libcachesim import libcachesim_python as native

SIZES = [500, 1000, 2000, 4000, 8000, 16000, 32000]

# libCacheSim name -> (init function, its cache-specific parameters). Defaults
# everywhere except Clock, spelled out because the Python wrapper passes them.
# Comments: the wafer policy compared with (docs/cache.md, "Peer parity").
POLICIES = {
    "LRU": (native.LRU_init, None),  # wafer: lru
    "FIFO": (native.FIFO_init, None),  # fifo
    "Clock": (native.Clock_init, "init-freq=0,n-bit-counter=1"),  # clock:insert_ref=0
    "Sieve": (native.Sieve_init, None),  # sieve
    "ARC": (native.ARC_init, None),  # arc
    "LIRS": (native.LIRS_init, None),  # lirs:stack_limit=2
    "S3FIFO": (native.S3FIFO_init, None),  # s3fifo
    "S3FIFOv0": (native.S3FIFOv0_init, None),  # s3fifo-v0
    "TwoQ": (native.TwoQ_init, None),  # 2q
    "CAR": (native.CAR_init, None),  # car
    "ClockPro": (native.ClockPro_init, None),  # clock-pro
    "Belady": (native.Belady_init, None),  # opt
}


def reader(path: str) -> lcs.TraceReader:
    # Unit size: every object is one byte, so a cache size is a number of objects.
    params = lcs.ReaderInitParam(ignore_obj_size=True)
    return lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE, params)


def misses(path: str, name: str, size: int) -> tuple[int, int]:
    init, extra = POLICIES[name]
    common = lcs.CommonCacheParams(cache_size=size, default_ttl=86400 * 300, hashpower=24)
    cache = init(common, extra) if extra is not None else init(common)
    n = miss = 0
    for req in reader(path):
        if not req.valid:
            break
        n += 1
        if not cache.get(req):
            miss += 1
    return n, miss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--policies", default=",".join(POLICIES))
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    print(f"# libcachesim {lcs.__version__}, {a.trace}, sizes {sizes}")
    for name in a.policies.split(","):
        if name not in POLICIES:
            sys.exit(f"unknown policy {name}; known: {', '.join(POLICIES)}")
        row, reqs = [], set()
        for s in sizes:
            n, m = misses(a.trace, name, s)
            reqs.add(n)
            row.append(m)
        print(f"{name:10} requests {','.join(map(str, sorted(reqs)))} misses {row}", flush=True)


if __name__ == "__main__":
    main()
