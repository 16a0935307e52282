"""Curves: one trace at every cache size, as ``wafer curve`` computes them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from os import PathLike
from typing import Any, Literal

from . import _args, _wafer
from .policy import policy_arg
from .sim import Size
from .trace import Trace


def curve(
    trace: str | PathLike[str] | Trace,
    policy: str | type | Sequence[str | type] = "lru",
    *,
    method: str | Sequence[str] | None = None,
    rate: float | None = None,
    max_keys: int | None = None,
    sample_unit: Literal["page", "block"] | None = None,
    seed: int = 0,
    exact_head: int | None = None,
    points: int = 100,
    sizes: Size | Sequence[Size] | None = None,
    format: str | None = None,
    mapping: dict[str, Any] | None = None,
    engine: Literal["pandas", "polars"] | None = None,
    **options: Any,
) -> list[dict[str, Any]] | Any:
    """Results of ``trace`` at every cache size for each ``policy``, in one pass
    where the policy allows it (``docs/curve.md``): ``method="exact"`` (LRU's stack
    distances, every size exactly; the default for LRU), ``"shards"`` (LRU on a
    spatial sample of ``rate``, with an exact head) or ``"minisim"`` (any policy,
    each size simulated on the sample at the size times ``rate``; the default for
    every other policy). A list of methods draws each.

    Sizes are ``points`` log-spaced from 1 page to the footprint, or ``sizes``
    (``"16MiB"``, ``"4096p"``, ``"5%"`` or ints of bytes). ``sample_unit="block"``
    samples whole erase blocks; ``max_keys`` caps the sample (fixed-size SHARDS).
    ``**options`` are the engine options, as for :func:`simulate` (the cost model
    and ``series_every`` are refused: a curve counts pages and samples no series).

    Returns the rows ``wafer curve --csv`` writes (``policy``, ``method``, ``rate``,
    ``capacity_pages``, ``miss_ratio``, ``page_writes``, ...: the same columns in the
    same order, the same numbers), as a list of dicts, or as a DataFrame with
    ``engine="pandas"`` or ``"polars"``. Bad arguments raise :class:`ValueError`
    with the CLI's message, naming the keyword. The GIL is released while the core
    runs.
    """
    if engine not in (None, "pandas", "polars"):
        raise ValueError(f"engine {engine!r}: expected 'pandas', 'polars' or None")
    if isinstance(trace, Trace):
        format = format or trace.format
        trace = trace.path
    text = _wafer.curve(
        _args.path("trace", trace),
        _args.texts("policy", policy_arg(policy)),
        methods=[] if method is None else _args.texts("method", method),
        rate=_args.optional_real("rate", rate),
        max_keys=_args.optional_integer("max_keys", max_keys),
        sample_unit=_args.optional_text("sample_unit", sample_unit),
        seed=_args.integer("seed", seed),
        exact_head=_args.optional_integer("exact_head", exact_head),
        points=_args.integer("points", points),
        sizes=[] if sizes is None else _args.sizes("sizes", sizes),
        options=_args.engine_options("curve", options),
        format=_args.optional_text("format", format),
        mapping=None if mapping is None else json.dumps(mapping),
    )
    rows = json.loads(text)
    if engine == "pandas":
        import pandas as pd

        return pd.DataFrame(rows)
    if engine == "polars":
        import polars as pl

        return pl.DataFrame(rows)
    return rows
