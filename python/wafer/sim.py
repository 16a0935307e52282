"""Simulations: a trace through policies x cache sizes (x devices), decoded once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from os import PathLike
from typing import Any, Literal

from . import _args, _wafer
from .policy import policy_arg
from .trace import Trace

Size = str | int
"""A size: a string (``"16MiB"``, ``"4096p"``, ``"5%"``) or an int of bytes."""


def simulate(
    trace: str | PathLike[str] | Trace,
    policy: str | type | Sequence[str | type],
    cache: Size | Sequence[Size],
    *,
    format: str | None = None,
    mapping: dict[str, Any] | None = None,
    device: str | Sequence[str] | None = None,
    address_map: Literal["compact", "wrap", "refuse"] = "compact",
    stream: bool = False,
    jobs: int = 0,
    max_cells: int | None = None,
    **options: Any,
) -> dict[str, Any] | list[dict[str, Any]]:
    """Simulate ``policy`` (``"lru"``, ``"2q:kin=0.3"``, see :func:`policies`, or a
    policy class of your own, :class:`wafer.Policy`, or ``MyPolicy.with_params(k=v)``)
    with a cache of ``cache`` (``"16MiB"``, ``"4096p"``, ``"5%"`` of the footprint, or
    an int of bytes).

    ``**options`` are the engine options, the experiment file's keys and ``wafer
    sim``'s flags under the same names (``block_size="256KiB"``, ``warmup=1000``,
    ``flush_at_end=True``, ``t_read_ns=...``, ``series_every=...``):
    :func:`engine_options` lists them with their defaults, and
    :func:`engine_option_table` says what each does. Former spellings (``block``)
    are accepted; any other keyword raises :class:`TypeError` naming the valid ones.

    ``policy``, ``cache`` and ``device`` may be lists: every combination runs over the
    trace decoded once, ``jobs`` at a time (0: all cores). Returns the row
    ``wafer sim --json`` prints (``policy``, ``cache``, ``capacity_pages``,
    ``hit_ratio``, ``page_writes``, ..., ``ftl_erases``, ``ftl_waf``), the same names
    and numbers as the CLI and an experiment's ``results.csv``; a list of rows when any
    argument is a list. With ``device`` (a profile such as ``"microsd-16g"``, see
    :func:`devices`, or a device ``.toml`` file), the after-cache operations are
    replayed on its FTL, their addresses placed on it by ``address_map``: ``"compact"``
    (the trace's erase blocks, or pages on a page-level FTL, in first-touch order,
    offsets kept, so a trace wider than the device keeps its own overwrites),
    ``"wrap"`` (pages modulo the
    capacity: folds distinct pages together) or ``"refuse"`` (a page beyond the
    capacity is an error); rows say which (``address_map``) and how many operations
    it moved (``ftl_remapped_ops``). ``mapping`` reads a custom text trace: the keys of an
    experiment file's ``mapping`` table (``{"offset_col": 3, "units": "sectors", ...}``,
    docs/formats.md). ``jobs`` above the cores runs one per core (with a note on
    stderr); a grid of more than 100,000 runs is refused unless ``max_cells`` allows
    it. Sizes and counts may be NumPy integers, other types raise :class:`TypeError`
    naming the keyword. The GIL is released while the core runs, and Ctrl-C stops it
    within about 100 ms (:class:`KeyboardInterrupt`); a trace that would not fit in
    memory raises :class:`MemoryError` (``stream=True`` reads it without holding it).
    """
    if isinstance(trace, Trace):
        format = format or trace.format
        trace = trace.path
    single = (
        isinstance(policy, str | type)
        and (isinstance(cache, str) or _args._is_int(cache))
        and (device is None or isinstance(device, str))
    )
    text = _wafer.simulate(
        _args.path("trace", trace),
        _args.texts("policy", policy_arg(policy)),
        _args.sizes("cache", cache),
        options=_args.engine_options("simulate", options),
        format=_args.optional_text("format", format),
        mapping=None if mapping is None else json.dumps(mapping),
        devices=[] if device is None else _args.texts("device", device),
        address_map=_args.text("address_map", address_map),
        stream=_args.flag("stream", stream),
        jobs=_args.integer("jobs", jobs),
        max_cells=_args.optional_integer("max_cells", max_cells),
    )
    rows = json.loads(text)
    return rows[0] if single else rows


def engine_options(**options: Any) -> dict[str, Any]:
    """The engine options (the keywords :func:`simulate` and :func:`curve` take
    beyond their own, the experiment file's keys), every one with its value: its
    default, or the value given here, checked as a run checks it."""
    return json.loads(_args.engine_options("engine_options", options))


def engine_option_table() -> list[dict[str, Any]]:
    """Each engine option: ``name`` (the keyword and the experiment file's key),
    ``flag`` (``wafer sim``'s), ``aliases`` (former spellings, still accepted),
    ``doc``, ``default``, ``kind`` (``size``, ``int``, ``bool`` or ``text``) and
    ``choices``."""
    return [dict(o) for o in _args.option_table()]


def policies() -> list[dict[str, Any]]:
    """Every registered policy: ``name``, ``aliases``, ``params`` (name, default,
    meaning) and ``summary``, as ``wafer policies --json`` lists them."""
    return json.loads(_wafer.policies())


def devices() -> list[dict[str, Any]]:
    """Every built-in device profile: ``name``, ``ftl``, ``capacity_bytes``,
    ``page_size``, ``pages_per_block`` and ``summary``."""
    return json.loads(_wafer.devices())
