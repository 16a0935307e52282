"""Experiment grids on Dask, through the one runner.

The driver (this process) plans the grid once, skips the cells already stored in the
output folder, and splits the rest into shares of one trace each (enough shares to
keep every worker busy, as few as that allows). A share travels as its cells' tasks
(JSON: each cell's ``RunSpec``, its identity, and where its trace is and how to read
it), and a task runs the Rust runner on them (``_wafer.run_cells``) without reading
the experiment file or checksumming a trace: the trace is decoded once per share and
each cell is stored atomically in the output folder the moment it finishes, exactly as
``wafer run`` stores it. A lost worker therefore loses only the cells it was
computing; Dask runs its share again elsewhere and the runner skips the cells already
stored, and a killed driver is finished by running the same command again. When every
cell is stored, the tables, figures and report are written as the local runner writes
them, describing this run (cells computed, workers, time).

Workers must see the traces and the output folder at the same paths as the driver (a
shared file system on a cluster; any ``LocalCluster``); devices travel in the tasks and
Python policy classes by value.

Command line (what ``wafer run exp.toml --dask ADDRESS`` runs)::

    python -m wafer.dask_run exp.toml --address tcp://scheduler:8786 [-o OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from collections import defaultdict
from os import PathLike
from typing import Any

from . import _wafer
from .experiment import default_out


def run_share(out: str, tasks: list[str], jobs: int, policies: bytes | None = None) -> int:
    """The task: compute a share of the grid (its cells' tasks, as ``plan_cells`` gives
    them) on a worker; returns the cells computed. ``policies`` holds the driver's
    Python policy classes (:func:`_ship`), registered here under their names before the
    cells run."""
    if policies:
        import pickle

        from .policy import register

        for name, cls in pickle.loads(policies).items():
            register(cls, name)
    return _wafer.run_cells(out, tasks, jobs=jobs)


def _ship() -> bytes | None:
    """The Python policy classes registered in this process, pickled by value (their
    code, not a reference to their module): a class defined in a notebook, a script or
    a test reaches workers that could not import it."""
    from .policy import registered

    classes = registered()
    if not classes:
        return None
    import sys

    import cloudpickle

    modules = {
        sys.modules[c.__module__]
        for c in classes.values()
        if c.__module__ in sys.modules and c.__module__ != "__main__"
    }
    for m in modules:
        cloudpickle.register_pickle_by_value(m)
    try:
        return cloudpickle.dumps(classes)
    finally:
        for m in modules:
            cloudpickle.unregister_pickle_by_value(m)


def _shares(todo: list[tuple[str, str, int, str]], workers: int) -> list[list[str]]:
    """The tasks of the missing cells in shares of one trace each: one share per trace
    when there are at least as many traces as workers, else each trace dealt
    round-robin into enough shares to keep every worker busy. Each share decodes its
    trace once."""
    by_trace: dict[int, list[str]] = defaultdict(list)
    for _, _, trace, task in todo:
        by_trace[trace].append(task)
    per_trace = max(1, -(-workers // len(by_trace))) if by_trace else 1
    shares = []
    for tasks in by_trace.values():
        n = min(per_trace, len(tasks))
        shares += [tasks[i::n] for i in range(n)]
    return shares


def _stored(out: str, ids: list[str]) -> int:
    cells = os.path.join(out, "cells")
    return sum(os.path.exists(os.path.join(cells, f"{cid}.json")) for cid in ids)


class _Progress:
    """A one-line progress report on stderr (redrawn in place on a terminal)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.tty = sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.last = -1

    def show(self, done: int) -> None:
        if done == self.last:
            return
        self.last = done
        dt = time.monotonic() - self.t0
        rate = done / dt if dt > 0 else 0.0
        line = f"dask: {done} of {self.total} cells stored ({rate:.2f} cells/s, {dt:.0f} s)"
        if self.tty:
            print(f"\r{line}", end="", file=sys.stderr, flush=True)
        elif done == self.total:
            print(line, file=sys.stderr)

    def close(self) -> None:
        if self.tty and self.last >= 0:
            print(file=sys.stderr)


def run(
    experiment: str | PathLike[str],
    out: str | PathLike[str] | None = None,
    *,
    address: str | None = None,
    client: Any = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Compute the missing cells of ``experiment`` on Dask and write the outputs.

    ``client`` (a ``dask.distributed.Client``) or ``address`` (a scheduler) selects
    the cluster; with neither, a ``LocalCluster`` is started for the run. Returns a
    summary: ``out``, ``total``, ``computed``, ``reused``, ``workers``, ``elapsed_s``,
    ``figures``, ``report``. Raises :class:`wafer.WaferError` naming the way out if
    some shares failed (the finished cells are stored; run again to compute the rest).
    On ``KeyboardInterrupt`` the tasks are cancelled, the cluster is closed, and the
    interrupt propagates; every stored cell stays. Another run on the same output
    folder is refused (:class:`wafer.WaferError` naming its pid and host).
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed  # noqa: F401
    except ImportError as e:
        raise ImportError(
            "the Dask backend needs dask.distributed: pip install '.[dask]' in the wafer repository"
        ) from e
    t0 = time.monotonic()
    experiment = os.path.abspath(experiment)
    out = os.path.abspath(out if out is not None else default_out(experiment))
    # One writer per output folder: this driver holds the folder's lock for the whole
    # run (its workers write through it); another run on the folder is refused.
    lock = _wafer.claim_out(experiment, out)
    try:
        return _run_locked(experiment, out, address, client, progress, t0)
    finally:
        lock.release()


def _run_locked(
    experiment: str, out: str, address: str | None, client: Any, progress: bool, t0: float
) -> dict[str, Any]:
    from dask.distributed import Client, LocalCluster, as_completed

    # The workers get each cell's task from here and plan nothing.
    cells = _wafer.plan_cells(experiment)
    stored = set(_wafer.stored_cells(out, [c[3] for c in cells]))
    todo = [c for c in cells if c[0] not in stored]
    ids = [c[0] for c in todo]
    own = None
    if todo and client is None:
        own = Client(address) if address else Client(LocalCluster(processes=True))
        client = own
    workers = 1
    failures: list[BaseException] = []
    bar = _Progress(len(todo)) if progress and todo else None
    try:
        if todo:
            info = client.scheduler_info()["workers"]
            workers = max(1, len(info))
            threads = max(1, min(w.get("nthreads", 1) for w in info.values())) if info else 1
            tag = uuid.uuid4().hex[:8]
            # Shares are dealt to the workers in turn (each may still run elsewhere if
            # its worker is lost), so that every worker has work from the start.
            addresses = sorted(info)
            # After plan_cells: the experiment's `py:` names are registered here now.
            policies = _ship()
            futures = [
                client.submit(
                    run_share,
                    out,
                    share,
                    threads,
                    policies,
                    key=f"wafer-{i}-{tag}",
                    workers=[addresses[i % len(addresses)]] if addresses else None,
                    allow_other_workers=True,
                )
                for i, share in enumerate(_shares(todo, workers))
            ]
            try:
                pending = as_completed(futures)
                while not pending.is_empty():
                    for fut in pending.next_batch(block=False) or []:
                        try:
                            fut.result()
                        except Exception as e:  # noqa: BLE001 - reported below
                            failures.append(e)
                    if bar:
                        bar.show(_stored(out, ids))
                    time.sleep(0.2)
                if bar:
                    bar.show(_stored(out, ids))
            finally:
                for fut in futures:
                    fut.cancel()
    finally:
        if bar:
            bar.close()
        if own is not None:
            cluster = own.cluster
            own.close()
            if cluster is not None and address is None:
                cluster.close()
    computed = _stored(out, ids)
    if failures:
        raise _wafer.WaferError(
            f"{len(todo) - computed} of {len(todo)} cells did not finish ({computed} computed"
            f" and stored in {out}; run again to compute the rest); first error: {failures[0]}"
        )
    # Every cell is stored now: the local runner computes nothing and writes the
    # outputs, describing this run.
    summary = json.loads(
        _wafer.run_local(
            experiment,
            out,
            jobs=1,
            computed=computed,
            elapsed_s=time.monotonic() - t0,
            workers=workers,
        )
    )
    summary["workers"] = workers
    return summary


def main(argv: list[str] | None = None) -> int:
    """``python -m wafer.dask_run``: run an experiment file on a Dask cluster."""
    ap = argparse.ArgumentParser(
        prog="python -m wafer.dask_run",
        description="Run a wafer experiment grid on a Dask cluster, one share per worker.",
        epilog="Example: python -m wafer.dask_run exp.toml --address tcp://10.0.0.1:8786",
    )
    ap.add_argument("experiment", help="experiment file (TOML)")
    ap.add_argument("-o", "--out", help="output folder (default: wafer-out/<file stem>)")
    ap.add_argument(
        "--address", help="Dask scheduler address (default: a LocalCluster on this machine)"
    )
    args = ap.parse_args(argv)
    out = os.path.abspath(args.out or default_out(args.experiment))
    try:
        s = run(args.experiment, out, address=args.address)
    except KeyboardInterrupt:
        try:
            tasks = [c[3] for c in _wafer.plan_cells(os.path.abspath(args.experiment))]
            total, have = len(tasks), len(_wafer.stored_cells(out, tasks))
            print(
                f"wafer: interrupted: {have} of {total} cells are stored in {out};"
                " run the same command again to finish",
                file=sys.stderr,
            )
        except Exception:  # noqa: BLE001 - the interrupt is what matters
            print("wafer: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError, _wafer.WaferError, ImportError) as e:
        print(f"wafer: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 1
    print(
        f"{s['total']} cells: computed {s['computed']}, reused {s['reused']}"
        f" (dask, {s['workers']} workers, {s['elapsed_s']:.1f} s)"
    )
    out = s["out"]
    print(f"results: {out}/results.csv, {out}/results.json, {out}/results.parquet")
    print(f"figures: {len(s['figures'])} SVG files in {out}/figures")
    if s.get("report"):
        print(f"report: {s['report']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
