"""Type stubs of the Rust extension (see python/src)."""

from collections.abc import Iterator
from typing import Literal

import numpy as np

__version__: str
LAB_VERSION: str

class WaferError(Exception): ...

class TraceReader(Iterator[dict[str, np.ndarray]]):
    def __init__(
        self,
        path: str,
        format: str | None = None,
        skip_invalid: bool = False,
        batch_size: int = 65536,
    ) -> None: ...
    def __iter__(self) -> TraceReader: ...
    def __next__(self) -> dict[str, np.ndarray]: ...
    @property
    def skipped(self) -> int: ...
    @property
    def format(self) -> str | None: ...

def trace_info(
    path: str, format: str | None = None, skip_invalid: bool = False, page_size: int = 4096
) -> str: ...
def simulate(
    path: str,
    policies: list[str],
    caches: list[str],
    options: str = "{}",
    format: str | None = None,
    mapping: str | None = None,
    devices: list[str] = ...,
    address_map: str = "compact",
    stream: bool = False,
    jobs: int = 0,
    max_cells: int | None = None,
) -> str: ...
def engine_option_table() -> str: ...

# The engine options (wafer_lab::options), each with its default; former spellings
# (block=, access=) are accepted too. A test checks this list against the core's.
def engine_options(
    *,
    block_size: str | int = "4MiB",
    page_size: str | int = "4KiB",
    granularity: Literal["page", "record"] = "page",
    warmup: int = 0,
    write_miss_fetch: bool = False,
    flush_at_end: bool = False,
    t_read_ns: int = 25000,
    t_write_ns: int = 200000,
    series_every: int = 0,
) -> str: ...
def policies() -> str: ...
def devices() -> str: ...
def cli(argv: list[str]) -> int: ...
def register_policy(name: str, cls: type, summary: str) -> None: ...
def curve(
    path: str,
    policies: list[str],
    methods: list[str] = ...,
    rate: float | None = None,
    max_keys: int | None = None,
    sample_unit: str | None = None,
    seed: int = 0,
    exact_head: int | None = None,
    points: int = 100,
    sizes: list[str] = ...,
    options: str = "{}",
    format: str | None = None,
    mapping: str | None = None,
) -> str: ...
def plan_cells(experiment: str) -> list[tuple[str, str, int, str]]: ...

class OutputLock:
    def release(self) -> None: ...

def claim_out(experiment: str, out: str) -> OutputLock: ...
def stored_cells(out: str, tasks: list[str]) -> list[str]: ...
def run_cells(out: str, tasks: list[str], jobs: int = 1) -> int: ...
def run_local(experiment: str, out: str, jobs: int = 0) -> str: ...
def reproduce(
    study: str,
    out: str,
    quick: bool = False,
    jobs: int = 0,
    replicates: int | None = None,
    measure: list[str] | None = None,
) -> str: ...
