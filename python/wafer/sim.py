"""One simulation: a trace through one policy at one cache size."""

from __future__ import annotations

import json
from os import PathLike
from typing import Any, Literal

from . import _wafer
from .trace import Trace


def simulate(
    trace: str | PathLike[str] | Trace,
    policy: str,
    cache: str,
    *,
    block: str = "4MiB",
    page_size: str = "4KiB",
    warmup: int = 0,
    write_miss_fetch: bool = False,
    flush_at_end: bool = False,
    granularity: Literal["page", "record"] = "page",
    format: str | None = None,
    device: str | None = None,
) -> dict[str, Any]:
    """Simulate ``policy`` (``"lru"``, ``"2q:kin=0.3"``, see ``wafer policies``)
    with a cache of ``cache`` (``"16MiB"``, ``"4096p"`` or ``"5%"`` of the footprint).

    Returns the record ``wafer sim --json`` prints for this cell (``trace``,
    ``policy``, ``cache``, ``capacity_pages``, ..., and ``metrics``: hits, hit ratio,
    page reads/writes, write IOs, block utilisation, ...), with identical numbers.
    With ``device`` (a profile such as ``"microsd-16g"``, see ``wafer ftl --help``, or
    a device ``.toml`` file), the after-cache operations are replayed on its FTL as in
    an experiment cell, and ``ftl`` holds the device metrics (WAF, erases, busy time).
    The GIL is released while the core runs, so threads can simulate in parallel.
    """
    if isinstance(trace, Trace):
        format = format or trace.format
        trace = trace.path
    text = _wafer.simulate(
        str(trace),
        policy,
        cache,
        block=block,
        page_size=page_size,
        granularity=granularity,
        warmup=warmup,
        write_miss_fetch=write_miss_fetch,
        flush_at_end=flush_at_end,
        format=format,
        device=device,
    )
    return json.loads(text)
