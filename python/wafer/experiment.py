"""Experiment grids: run them (here or on a Dask cluster) and load their results."""

from __future__ import annotations

import json
import os
import warnings
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from . import _args, _wafer


def default_out(experiment: str | PathLike[str]) -> str:
    """Where ``wafer run`` puts an experiment's output: ``wafer-out/<file stem>``."""
    return str(Path("wafer-out") / Path(experiment).stem)


def run_experiment(
    path: str | PathLike[str],
    out: str | PathLike[str] | None = None,
    jobs: int = 0,
    backend: Literal["local", "dask"] = "local",
    address: str | None = None,
    *,
    client: Any = None,
) -> str:
    """Run the experiment file ``path`` (see ``docs/experiments.md``) into ``out``
    (default ``wafer-out/<stem>``, like ``wafer run``) and return ``out``.

    Cells already stored in ``out`` are not computed again. ``backend="local"`` runs
    the grid in ``jobs`` threads (0: the file's ``workers``, else all cores).
    ``backend="dask"`` sends each missing cell to the Dask scheduler at ``address`` (or
    to ``client``, a ``dask.distributed.Client``; neither: a ``LocalCluster`` on this
    machine), stores each result as it arrives, and writes the tables, figures and
    report like the local runner. The cells travel to the workers as tasks (the
    experiment is planned here only); every worker must see the traces and ``out`` at
    the same paths.
    """
    out = str(out) if out is not None else default_out(path)
    if backend == "local":
        _wafer.run_local(_args.path("path", path), out, jobs=_args.integer("jobs", jobs))
    elif backend == "dask":
        from .dask_run import run

        run(path, out, address=address, client=client)
    else:
        raise ValueError(f"backend {backend!r}: expected 'local' or 'dask'")
    return out


def reproduce(
    study: str | PathLike[str],
    quick: bool = False,
    out: str | PathLike[str] | None = None,
    jobs: int = 0,
    replicates: int | None = None,
    measure: str | list[str] | None = None,
) -> dict[str, Any]:
    """Run a study with claims, as ``wafer reproduce`` does, and return what it found.

    ``study`` is a paper study's name (``"ts-clock"``, ``"bua"``, ``"craw"``,
    ``"sorted-clock"``, ``"apu"``, ``"demo"``) or a study file: an experiment file with
    ``[[claims]]``, or an on-board cache study with ``[board]`` (see
    ``docs/experiments.md``). ``quick`` runs its quick form (the
    first trace of each group at its smallest and largest cache size); ``replicates``
    sets how many independent agings every device cell runs (default: the file's,
    at most 3 in the quick form); ``measure`` the measurement views of the device
    cells (``"as-captured"``, ``"steady"`` or a list; default: the file's, both for
    the paper studies, each claim judged under each). Results go to
    ``out`` (default ``wafer-out/<name>``), where a rerun reuses every stored cell.

    Returns a dict: ``out``; ``rows``, one per cell of the main grid (the columns
    ``wafer sim --json`` prints; an on-board cache study's, those of its
    ``results.csv``); ``verdicts``, one per claim and group of traces
    (``claim``, ``text``, ``group``, ``paper``, ``wafer``, ``range``, ``cells``,
    ``verdict``, ``why``), the rows of the report's verdict table; and ``printed``,
    the comparison as ``wafer reproduce`` prints it.
    """
    name = os.fspath(study)
    if out is None:
        out = str(Path("wafer-out") / (Path(name).stem if name.endswith(".toml") else name))
    summary = _wafer.reproduce(
        name,
        os.fspath(out),
        quick=bool(quick),
        jobs=_args.integer("jobs", jobs),
        replicates=_args.optional_integer("replicates", replicates),
        measure=[measure] if isinstance(measure, str) else measure,
    )
    return json.loads(summary)


def load_results(out: str | PathLike[str], engine: Literal["pandas", "polars"] = "pandas") -> Any:
    """The results table of an experiment output folder as a pandas (or polars)
    DataFrame: one row per cell, every parameter and scalar metric.

    Reads ``results.parquet`` through Arrow; an older output folder without it is read
    from ``results.json`` instead (with a warning saying so).
    """
    if engine not in ("pandas", "polars"):
        raise ValueError(f"engine {engine!r}: expected 'pandas' or 'polars'")
    parquet = os.path.join(out, "results.parquet")
    if os.path.exists(parquet):
        import pyarrow.parquet as pq

        table = pq.read_table(parquet)
        if engine == "pandas":
            return table.to_pandas()
        import polars as pl

        return pl.from_arrow(table)
    path = os.path.join(out, "results.json")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{out}: no results.parquet or results.json (run the experiment)")
    warnings.warn(f"{parquet} is missing; reading {path} instead", stacklevel=2)
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    if engine == "pandas":
        import pandas as pd

        return pd.DataFrame(rows)
    import polars as pl

    return pl.DataFrame(rows)
