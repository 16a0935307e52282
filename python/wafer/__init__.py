"""wafer: a trace-driven laboratory for flash-aware buffer caches.

The Rust core does the work; this package exposes it to notebooks:

>>> import wafer
>>> for batch in wafer.open_trace("trace.csv.gz"):
...     print(batch["offset"][:5])
"""

from __future__ import annotations

from collections.abc import Iterator
from os import PathLike

import numpy as np

from . import _wafer
from ._wafer import WaferError, __version__

__all__ = ["WaferError", "__version__", "open_trace", "read_trace"]


def open_trace(
    path: str | PathLike[str],
    format: str | None = None,
    *,
    skip_invalid: bool = False,
    batch_size: int = 65536,
) -> Iterator[dict[str, np.ndarray]]:
    """Stream a trace in batches of requests.

    Each batch is a dict of equally long NumPy arrays: ``time_ns`` (uint64),
    ``op`` (uint8: 0 read, 1 write, 2 trim), ``dev`` (uint32), ``offset`` and ``len``
    (bytes). The format is detected unless ``format`` names one (see
    ``wafer trace info --help`` for the names); gzip and zstd input is read
    transparently. Malformed records raise :class:`WaferError` with the file and line,
    or are skipped and counted with ``skip_invalid=True``.
    """
    return _wafer.TraceReader(
        str(path), format=format, skip_invalid=skip_invalid, batch_size=batch_size
    )


def read_trace(path: str | PathLike[str], format: str | None = None) -> dict[str, np.ndarray]:
    """Read a whole trace into one dict of NumPy arrays (see :func:`open_trace`)."""
    batches = list(open_trace(path, format))
    keys = ("time_ns", "op", "dev", "offset", "len")
    if not batches:
        dtypes = (np.uint64, np.uint8, np.uint32, np.uint64, np.uint32)
        return {k: np.empty(0, dtype=t) for k, t in zip(keys, dtypes, strict=True)}
    return {k: np.concatenate([b[k] for b in batches]) for k in keys}
