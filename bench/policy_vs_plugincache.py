"""A Python-defined LRU in wafer against the same LRU in libCacheSim's Python
``PluginCache``, on the same page accesses: accesses per second, and the hit counts,
which must agree.

Two steps, each in its own environment (libCacheSim is not a dependency of wafer):

    .venv/bin/python bench/policy_vs_plugincache.py wafer traces/mariadb-oltp.wtr 5% t.bin
    $LCS/bin/python bench/policy_vs_plugincache.py lcs t.bin CAPACITY_PAGES

The first runs wafer's built-in ``lru`` and ``examples/policies/lru.py`` (the class
``LRU``) over the trace, prints their rows' times and writes the trace's page accesses
as libCacheSim's oracleGeneral binary (one record per 4 KiB page, object id = page
number, size 1), with the capacity in pages it used; the second runs libCacheSim's
``PluginCache`` with the LRU hooks of its documentation (an ``OrderedDict``) through
its C trace reader. Trims are refused: libCacheSim has no such request.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 3


def run_wafer(trace: str, cache: str, out: str) -> None:
    import importlib.util

    import numpy as np
    import wafer

    spec = importlib.util.spec_from_file_location("lru_example", ROOT / "examples/policies/lru.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["lru_example"] = module
    spec.loader.exec_module(module)
    for policy in ("lru", module.LRU):
        best = None
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            row = wafer.simulate(trace, policy, cache)
            wall = time.perf_counter() - t0
            if best is None or row["elapsed_s"] < best[0]["elapsed_s"]:
                best = (row, wall)
        row, wall = best
        print(
            f"wafer {row['policy']}: {row['accesses']} accesses, {row['hits']} hits, "
            f"capacity {row['capacity_pages']} pages, cell {row['elapsed_s']:.3f} s "
            f"({row['accesses'] / row['elapsed_s'] / 1e6:.2f} M accesses/s), call {wall:.3f} s"
        )
    t = wafer.open_trace(trace).read()
    if (t["op"] == 2).any():
        sys.exit(f"{trace}: has trims, which libCacheSim cannot replay")
    first = t["offset"] // 4096
    last = (t["offset"] + np.maximum(t["len"], 1) - 1) // 4096
    n = (last - first + 1).astype(np.int64)
    starts = np.repeat(first - np.concatenate(([0], np.cumsum(n)[:-1])), n)
    pages = starts + np.arange(n.sum())
    pages = pages + (np.repeat(t["dev"].astype(np.uint64), n) << np.uint64(32)).astype(np.int64)
    rec = np.zeros(
        len(pages), dtype=[("t", "<u4"), ("id", "<u8"), ("size", "<u4"), ("next", "<i8")]
    )
    rec["id"] = pages
    rec["size"] = 1
    rec["next"] = -1
    rec.tofile(out)
    print(f"{out}: {len(pages)} page accesses; run the lcs step with CAPACITY_PAGES above")


def run_lcs(path: str, capacity: int) -> None:
    from collections import OrderedDict

    import libcachesim as lcs

    def init_hook(params):
        return OrderedDict()

    def hit_hook(data, req):
        data.move_to_end(req.obj_id, last=True)

    def miss_hook(data, req):
        data[req.obj_id] = req.obj_size

    def eviction_hook(data, req):
        return data.popitem(last=False)[0]

    def remove_hook(data, obj_id):
        data.pop(obj_id, None)

    def free_hook(data):
        data.clear()

    best = None
    for _ in range(REPEAT):
        reader = lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE)
        cache = lcs.PluginCache(
            capacity, init_hook, hit_hook, miss_hook, eviction_hook, remove_hook, free_hook
        )
        t0 = time.perf_counter()
        miss_ratio, _ = cache.process_trace(reader)
        dt = time.perf_counter() - t0
        if best is None or dt < best[1]:
            best = (miss_ratio, dt)
    n = Path(path).stat().st_size // 24
    miss_ratio, dt = best
    hits = round(n * (1 - miss_ratio))
    print(
        f"libCacheSim PluginCache LRU: {n} accesses, {hits} hits, capacity {capacity}, "
        f"{dt:.3f} s ({n / dt / 1e6:.2f} M accesses/s)"
    )


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "wafer":
        run_wafer(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "lcs":
        run_lcs(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
