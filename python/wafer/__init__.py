"""wafer: a trace-driven laboratory for flash-aware buffer caches.

The Rust core does the work; this package exposes it to notebooks and clusters:

>>> import wafer
>>> trace = wafer.open_trace("trace.csv.gz")
>>> for batch in trace.batches(100_000):
...     print(batch["offset"][:5])
>>> wafer.simulate("trace.csv.gz", "lru", "16MiB")["hit_ratio"]
>>> rows = wafer.simulate("trace.csv.gz", ["lru", "ts-clock"], ["4MiB", "16MiB"])
>>> df = wafer.curve("trace.csv.gz", ["lru", "ts-clock"], engine="pandas")
>>> out = wafer.run_experiment("exp.toml", backend="dask", address="tcp://sched:8786")
>>> df = wafer.load_results(out)
>>> class MyPolicy(wafer.Policy): ...   # hit / insert / evict / remove hooks
>>> wafer.simulate("trace.csv.gz", MyPolicy, "16MiB")
>>> found = wafer.reproduce("craw", quick=True)
>>> [v["verdict"] for v in found["verdicts"]]

Errors from the core are raised as :class:`ValueError` (bad input), :class:`OSError`
(unreadable files) or :class:`WaferError`, with wafer's one-line message.
"""

from __future__ import annotations

from ._wafer import LAB_VERSION, WaferError, __version__
from .curve import curve
from .experiment import load_results, reproduce, run_experiment
from .policy import Policy
from .sim import devices, engine_option_table, engine_options, policies, simulate
from .trace import Trace, open_trace, read_trace

__all__ = [
    "LAB_VERSION",
    "Policy",
    "Trace",
    "WaferError",
    "__version__",
    "curve",
    "devices",
    "engine_option_table",
    "engine_options",
    "load_results",
    "open_trace",
    "policies",
    "read_trace",
    "reproduce",
    "run_experiment",
    "simulate",
]
