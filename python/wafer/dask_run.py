"""Experiment grids on Dask: each missing cell is one task.

The driver (this process) lists the grid's cells, skips those already stored in the
output folder, and submits the rest; a task computes one cell from (experiment path,
cell id) with the Rust core and returns the result JSON; the driver stores each result
atomically the moment it arrives (same files as ``wafer run``), so a lost worker or a
killed driver loses no finished cell and a rerun computes only the rest. When every
cell is stored, the tables, figures and report are written exactly as the local runner
writes them.

Command line (what ``wafer run exp.toml --dask ADDRESS`` runs)::

    python -m wafer.dask_run exp.toml --address tcp://scheduler:8786 [-o OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from os import PathLike
from typing import Any

from . import _wafer
from .experiment import default_out


def compute_cell(experiment: str, cell_id: str) -> str:
    """The task: compute one cell on a worker and return its result JSON."""
    return _wafer.compute_cell(experiment, cell_id)


def run(
    experiment: str | PathLike[str],
    out: str | PathLike[str] | None = None,
    *,
    address: str | None = None,
    client: Any = None,
) -> dict[str, Any]:
    """Compute the missing cells of ``experiment`` on Dask and write the outputs.

    ``client`` (a ``dask.distributed.Client``) or ``address`` (a scheduler) selects
    the cluster; with neither, a ``LocalCluster`` is started for the run. Returns a
    summary: ``out``, ``total``, ``computed``, ``reused``, ``figures``, ``report``.
    Raises :class:`wafer.WaferError` naming the failed cells if some did not finish
    (the finished ones are stored; run again to compute the rest).
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as e:
        raise ImportError(
            "the Dask backend needs dask.distributed: pip install 'wafer-flash[dask]'"
        ) from e
    experiment = os.path.abspath(experiment)
    out = os.path.abspath(out if out is not None else default_out(experiment))
    cells = _wafer.plan_cells(experiment)
    stored = set(_wafer.stored_cells(experiment, out))
    todo = [(cid, label) for cid, label in cells if cid not in stored]
    own = None
    if todo and client is None:
        own = Client(address) if address else Client(LocalCluster(processes=True))
        client = own
    failures: list[tuple[str, BaseException]] = []
    computed = 0
    try:
        if todo:
            tag = uuid.uuid4().hex[:8]
            futures = {
                client.submit(compute_cell, experiment, cid, key=f"wafer-{cid}-{tag}"): label
                for cid, label in todo
            }
            try:
                for fut in as_completed(list(futures)):
                    try:
                        _wafer.store_cell(out, fut.result())
                        computed += 1
                    except Exception as e:  # noqa: BLE001 - reported below, per cell
                        failures.append((futures[fut], e))
            finally:
                for fut in futures:
                    fut.cancel()
    finally:
        if own is not None:
            cluster = own.cluster
            own.close()
            if cluster is not None and address is None:
                cluster.close()
    if failures:
        label, err = failures[0]
        raise _wafer.WaferError(
            f"{len(failures)} of {len(todo)} cells failed (the other {len(cells) - len(failures)}"
            f" are stored in {out}; run again to compute the rest); first: {label}: {err}"
        )
    # Every cell is stored now: the local runner computes nothing and writes the outputs.
    summary = json.loads(_wafer.run_local(experiment, out, jobs=1))
    summary["computed"] = computed
    summary["reused"] = len(cells) - len(todo)
    return summary


def main(argv: list[str] | None = None) -> int:
    """``python -m wafer.dask_run``: run an experiment file on a Dask cluster."""
    ap = argparse.ArgumentParser(
        prog="python -m wafer.dask_run",
        description="Run a wafer experiment grid on a Dask cluster, one task per cell.",
        epilog="Example: python -m wafer.dask_run exp.toml --address tcp://10.0.0.1:8786",
    )
    ap.add_argument("experiment", help="experiment file (TOML)")
    ap.add_argument("-o", "--out", help="output folder (default: wafer-out/<file stem>)")
    ap.add_argument(
        "--address", help="Dask scheduler address (default: a LocalCluster on this machine)"
    )
    args = ap.parse_args(argv)
    try:
        s = run(args.experiment, args.out or default_out(args.experiment), address=args.address)
    except (OSError, ValueError, _wafer.WaferError, ImportError) as e:
        print(f"wafer: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 1
    print(f"{s['total']} cells: computed {s['computed']}, reused {s['reused']} (dask)")
    out = s["out"]
    print(f"results: {out}/results.csv, {out}/results.json, {out}/results.parquet")
    print(f"figures: {len(s['figures'])} SVG files in {out}/figures")
    if s.get("report"):
        print(f"report: {s['report']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
