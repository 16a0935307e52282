#!/usr/bin/env python3
"""Replay a page trace on sssl-ftlsim's greedy page-mapped FTL (the peer of
`bench/ftl_vs_sssl.sh`) with the geometry and GC trigger of wafer's page-level FTL.

usage: PYTHONPATH=<built sssl-ftlsim> sssl_ftlsim_greedy.py PAGES LOGICAL_PAGES NP PHYS_BLOCKS N

PAGES holds one "page 1" line per single-page write (the peer's trace format). The
device has PHYS_BLOCKS segments of NP pages; the peer cleans after a write whenever
fewer than 2 blocks are free, until 2 are, which is when wafer cleans (GC_RESERVE = 2:
it cleans before taking a new frontier block while no more than 2 are free). All
blocks start free and the run starts on an empty device, like `wafer ftl` without
aging. Prints host writes, flash writes and WAF.
"""

import sys

import ftlsim
import getaddr

pages, logical, np_, phys, n = sys.argv[1], *map(int, sys.argv[2:])
assert logical <= phys * np_
ftl = ftlsim.ftl(phys, np_)
ftl.minfree = 2
ftl.maxfree = 2
ftl.get_input_pool = ftlsim.cvar.write_select_first
ftl.get_pool_to_clean = ftlsim.cvar.clean_select_first
pool = ftlsim.pool(ftl, "greedy", np_)
pool.next_pool = pool
segments = [ftlsim.segment(np_) for _ in range(phys)]
for s in segments:
    s.thisown = False
pool.add_segment(segments.pop())
for s in segments:
    ftl.put_blk(s)
src = getaddr.trace(pages)
ftl.run(src.handle, n)
host, flash = ftl.ext_writes, ftl.int_writes
print(f"sssl-ftlsim host_write_pages {host} flash_writes {flash} waf {flash / host:.4f}")
