"""Traces as NumPy batches, and their statistics (``wafer trace info``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from os import PathLike
from typing import Any

import numpy as np

from . import _args, _wafer

#: Columns of a batch and their dtypes.
COLUMNS: dict[str, type] = {
    "time_ns": np.uint64,
    "op": np.uint8,
    "dev": np.uint32,
    "offset": np.uint64,
    "len": np.uint32,
}


class Trace:
    """A trace file, read on demand (the format is detected unless named).

    Each batch is a dict of equally long NumPy arrays: ``time_ns`` (uint64), ``op``
    (uint8: 0 read, 1 write, 2 trim), ``dev`` (uint32), ``offset`` (uint64, bytes) and
    ``len`` (uint32, bytes). gzip and zstd input is read transparently. Malformed
    records raise :class:`ValueError` or :class:`wafer.WaferError` naming file and
    line, or are skipped and counted with ``skip_invalid=True``.
    """

    def __init__(
        self, path: str | PathLike[str], format: str | None = None, *, skip_invalid: bool = False
    ) -> None:
        self.path = _args.path("path", path)
        self.format = _args.optional_text("format", format)
        self.skip_invalid = _args.flag("skip_invalid", skip_invalid)
        # Open once now so that a missing file or unknown format fails here.
        _wafer.TraceReader(
            self.path, format=self.format, skip_invalid=self.skip_invalid, batch_size=1
        )

    def __repr__(self) -> str:
        return f"Trace({self.path!r}, format={self.format!r})"

    def batches(self, size: int = 65536) -> Iterator[dict[str, np.ndarray]]:
        """Stream the requests in batches of at most ``size`` (the last may be shorter)."""
        size = _args.integer("size", size)
        if size < 1:
            raise ValueError(f"batch size must be positive, got {size}")
        return _wafer.TraceReader(
            self.path, format=self.format, skip_invalid=self.skip_invalid, batch_size=size
        )

    def __iter__(self) -> Iterator[dict[str, np.ndarray]]:
        return self.batches()

    def read(self) -> dict[str, np.ndarray]:
        """The whole trace as one dict of NumPy arrays."""
        parts = list(self.batches())
        if not parts:
            return {k: np.empty(0, dtype=t) for k, t in COLUMNS.items()}
        return {k: np.concatenate([b[k] for b in parts]) for k in COLUMNS}

    def info(self, page_size: int = 4096) -> dict[str, Any]:
        """The report of ``wafer trace info --json``: request counts and bytes per
        operation, footprint in ``page_size`` pages, sizes, inter-arrival times, ..."""
        text = _wafer.trace_info(
            self.path,
            format=self.format,
            skip_invalid=self.skip_invalid,
            page_size=_args.integer("page_size", page_size),
        )
        return json.loads(text)


def open_trace(
    path: str | PathLike[str], format: str | None = None, *, skip_invalid: bool = False
) -> Trace:
    """Open a trace file; see :class:`Trace` (``wafer trace info --help`` lists formats)."""
    return Trace(path, format, skip_invalid=skip_invalid)


def read_trace(path: str | PathLike[str], format: str | None = None) -> dict[str, np.ndarray]:
    """Read a whole trace into one dict of NumPy arrays (see :class:`Trace`)."""
    return Trace(path, format).read()
