"""Experiment grids: the local runner, the Dask backend (2-worker LocalCluster), resume
after a killed worker, and loading results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import dask
import pytest
import wafer
from conftest import ROOT, write_experiment
from conftest import trace as trace_path

distributed = pytest.importorskip("dask.distributed")


# Both carried by the repository, so the grid tests run from a clone alone.
GRID_TRACES = ["disksim/tpcc-small.trace", "fileserver.wtr"]


def cells(out: Path) -> dict[str, dict]:
    """Stored cell results by id, without the wall-clock time."""
    got = {}
    for p in (out / "cells").glob("*.json"):
        r = json.loads(p.read_text())
        r.pop("elapsed_s")
        got[r["id"]] = r
    return got


def table(out: Path):
    df = wafer.load_results(out)
    return df.drop(columns=["elapsed_s"])


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """A 2 x 3 x 2 grid with a device, and its local run as the reference. The TPC-C
    trace's after-cache operations touch over 5000 erase blocks of 4 MiB, more than the
    card's 4096, so compact refuses them: the grid folds its addresses (wrap), and the
    rows say so."""
    d = tmp_path_factory.mktemp("grid")
    exp = write_experiment(
        d,
        traces=GRID_TRACES,
        policies=["lru", "clock", "lb-clock"],
        sizes=["1MiB", "8MiB"],
        devices=["microsd-16g"],
        address_map="wrap",
    )
    local = d / "local"
    assert wafer.run_experiment(exp, local, jobs=2) == str(local)
    return exp, local


def test_local_run_writes_tables_and_loads_as_frames(grid):
    exp, local = grid
    df = wafer.load_results(local)
    assert len(df) == 12 and set(df["policy"]) == {"lru", "clock", "lb-clock"}
    assert ((df["hit_ratio"] >= 0) & (df["hit_ratio"] <= 1)).all()
    assert (df["ftl_waf"] >= 1).all()
    assert set(df["address_map"]) == {"wrap"}
    assert (df[df["trace"] == "tpcc-small"]["ftl_remapped_ops"] > 0).all()
    pl = wafer.load_results(local, engine="polars")
    assert pl.shape == df.shape and pl["hit_ratio"].to_list() == df["hit_ratio"].tolist()
    # The table is the stored cells: the JSON fallback agrees with the Parquet file.
    os.rename(local / "results.parquet", local / "results.parquet.bak")
    try:
        with pytest.warns(UserWarning, match="results.json"):
            js = wafer.load_results(local)
    finally:
        os.rename(local / "results.parquet.bak", local / "results.parquet")
    assert js["hit_ratio"].tolist() == df["hit_ratio"].tolist()


def test_dask_local_cluster_equals_local_runner(grid, tmp_path):
    exp, local = grid
    out = tmp_path / "dask"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        wafer.run_experiment(exp, out, backend="dask", address=cluster.scheduler_address)
    assert cells(out) == cells(local)
    assert table(out).equals(table(local))
    assert (out / "results.csv").exists() and list((out / "figures").glob("*.svg"))


def test_a_share_is_computed_from_its_tasks_alone(grid, tmp_path):
    # The driver plans; a worker gets the cells' tasks and never reads the experiment
    # file (gone by then), yet stores what the local runner stores.
    exp, local = grid
    copy = tmp_path / "exp.toml"
    copy.write_text(exp.read_text())
    planned = wafer._wafer.plan_cells(str(copy))
    copy.unlink()
    tasks = [c[3] for c in planned]
    out = tmp_path / "share"
    assert wafer._wafer.run_cells(str(out), tasks, jobs=2) == len(tasks)
    assert cells(out) == cells(local)
    assert sorted(wafer._wafer.stored_cells(str(out), tasks)) == sorted(c[0] for c in planned)
    # Resumed, the share computes nothing.
    assert wafer._wafer.run_cells(str(out), tasks) == 0


def test_killed_worker_loses_no_finished_cell_and_rerun_completes(tmp_path):
    # Cells of about a second each, so that the kill lands while both workers compute.
    exp = write_experiment(
        tmp_path,
        traces=["cloudphysics/cloudPhysicsIO.vscsi"],
        policies=["lru", "clock", "lb-clock"],
        sizes=["1MiB", "8MiB"],
        devices=["microsd-16g"],
    )
    local = tmp_path / "local"
    wafer.run_experiment(exp, local, jobs=2)
    reference = cells(local)
    out = tmp_path / "killed"
    # A task whose worker dies fails at once instead of being retried elsewhere.
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        error: list[BaseException] = []

        def drive():
            try:
                wafer.run_experiment(exp, out, backend="dask", client=client)
            except BaseException as e:  # noqa: BLE001 - checked below
                error.append(e)

        t = threading.Thread(target=drive)
        t.start()
        deadline = time.time() + 120
        while not list((out / "cells").glob("*.json")) and time.time() < deadline:
            time.sleep(0.005)
        victim = sorted(client.run(os.getpid).values())[0]
        os.kill(victim, signal.SIGKILL)
        t.join(300)
        assert not t.is_alive()
    stored = cells(out)
    # The run failed, and named the way out; every stored cell is complete and equal to
    # the local runner's.
    assert len(error) == 1 and isinstance(error[0], wafer.WaferError), error
    assert "run again" in str(error[0])
    assert 1 <= len(stored) < len(reference)
    assert all(reference[k] == v for k, v in stored.items())
    before = set(stored)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        from wafer.dask_run import run

        s = run(exp, out, address=cluster.scheduler_address)
    assert s["reused"] == len(before) and s["computed"] == len(reference) - len(before)
    assert cells(out) == reference
    assert table(out).equals(table(local))


def test_a_grid_of_40_shares_completes_every_time_and_its_folder_has_one_writer(tmp_path):
    # 40 generated traces: one share each, dealt to 2 worker processes that store
    # their cells side by side in one folder (shares used to remove each other's
    # temporaries mid-write).
    lines = ['name = "forty"', "traces = ["]
    lines += [
        f'  {{ gen = {{ kind = "zipf", requests = 3000, footprint = "8MiB", seed = {i} }},'
        f' name = "z{i}" }},'
        for i in range(40)
    ]
    lines += [
        "]",
        'policies = ["lru", "clock"]',
        'cache_sizes = ["10%"]',
        "[outputs]",
        'figures = ["hit-ratio"]',
        "report = false",
    ]
    exp = tmp_path / "forty.toml"
    exp.write_text("\n".join(lines) + "\n")
    local = tmp_path / "local"
    wafer.run_experiment(exp, local, jobs=2)
    from wafer.dask_run import run

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        for trial in range(5):
            out = tmp_path / f"dask{trial}"
            s = run(exp, out, address=cluster.scheduler_address, progress=False)
            assert s["computed"] == 80, trial
            assert cells(out) == cells(local), trial
        # While a driver holds a folder, another run there is refused naming it.
        out = tmp_path / "held"
        held = wafer._wafer.claim_out(str(exp), str(out))
        error: list[BaseException] = []

        def second():
            try:
                run(exp, out, address=cluster.scheduler_address, progress=False)
            except BaseException as e:  # noqa: BLE001 - checked below
                error.append(e)

        t = threading.Thread(target=second)
        t.start()
        t.join(60)
        held.release()
        assert len(error) == 1 and "the output folder is in use by wafer pid" in str(error[0])
        assert not (out / "cells").exists()


def test_simulate_with_a_device_equals_the_experiment_cell(grid):
    exp, local = grid
    df = wafer.load_results(local)
    stored = cells(local)
    for _, row in df[df["cache"] == "8MiB"].iterrows():
        cell = stored[row["cell_id"]]
        trace = next(str(trace_path(t)) for t in GRID_TRACES if row["trace"] in t)
        got = wafer.simulate(
            trace, row["policy"], "8MiB", block="256KiB", device="microsd-16g", address_map="wrap"
        )
        assert got["device"] == "microsd-16g"
        assert {k[4:]: v for k, v in got.items() if k.startswith("ftl_")} == cell["ftl"]
        assert got["hit_ratio"] == cell["cache"]["hit_ratio"]
        assert got["page_writes"] == cell["cache"]["page_writes"]
        # The same run as the experiment's cell, so the same id.
        assert got["cell_id"] == row["cell_id"], row["policy"]


def test_plots_draw_the_results(grid):
    import wafer.plot

    _, local = grid
    df = wafer.load_results(local)
    fig = wafer.plot.hit_ratio(df)
    # One panel per trace, sharing the y axis, each with a line per policy, and one
    # legend for the figure naming each policy once.
    assert [ax.get_title() for ax in fig.axes] == list(dict.fromkeys(df["trace"]))
    assert [len(ax.get_lines()) for ax in fig.axes] == [3, 3]
    assert fig.axes[0].get_shared_y_axes().joined(fig.axes[0], fig.axes[1])
    assert [ax.get_legend() for ax in fig.axes] == [None, None]
    (legend,) = fig.legends
    assert sorted(t.get_text() for t in legend.get_texts()) == ["clock", "lb-clock", "lru"]
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    drawn = sorted(y for line in lines for y in line.get_ydata())
    assert drawn == sorted(df["hit_ratio"])
    wb = wafer.plot.write_backs(wafer.load_results(local, engine="polars"))
    drawn = sorted(y for ax in wb.axes for line in ax.get_lines() for y in line.get_ydata())
    assert drawn == sorted(df["page_writes"] + df["pad_writes"])
    wear = wafer.plot.device_wear(df)
    assert [len(ax.patches) for ax in wear.axes] == [6, 6]


def test_reproduce_returns_the_verdicts_the_cli_prints(wafer_bin, tmp_path):
    # craw's bundled group runs from a clone alone; its Pixel 6a group where the
    # shared traces are.
    found = wafer.reproduce("craw", quick=True, out=tmp_path / "py", jobs=2)
    cli = subprocess.run(
        [wafer_bin, "reproduce", "craw", "--quick", "-j", "2", "-o", str(tmp_path / "cli")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = [ln.strip() for ln in cli.splitlines() if ln.strip().startswith("verdict: ")]
    assert printed == [ln.strip() for ln in found["printed"] if ln.strip().startswith("verdict: ")]
    assert len(found["verdicts"]) == len(printed) > 0
    for row, line in zip(found["verdicts"], printed, strict=True):
        assert line.startswith(f"verdict: {row['verdict']} (")
        assert row["claim"].endswith("I/O time") and " of " in row["cells"]
    # Paper 002's CLOCK family inserts with the reference bit clear (studies/craw.toml).
    policies = {r["policy"] for r in found["rows"]}
    assert policies >= {"craw", "clock:insert_ref=0", "car", "cfclock:insert_ref=0"}
    assert (tmp_path / "py" / "report.html").is_file()


def reduced_apu(wafer_bin: str, dir: Path) -> Path:
    """apu's quick form as `wafer reproduce apu --quick --export` writes it, at one load
    (100 ms gaps), 1- and 2-way caches and two idle thresholds: every workload and
    every claim of the study in 82 cells, where the whole quick form has 378 (the CLI's
    own test runs those, crates/cli/tests/cli/reproduce.rs)."""
    f = dir / "apu.toml"
    subprocess.run(
        [wafer_bin, "reproduce", "apu", "--quick", "--export", str(f)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    text = f.read_text()
    for key, value in [
        ("gaps", '["100ms"]'),
        ("ways", "[1, 2]"),
        ("thresholds", '["1ms", "4ms"]'),
    ]:
        lines = [ln for ln in text.splitlines() if ln.startswith(f"{key} = ")]
        assert len(lines) == 1, f"the exported apu study has no single `{key} = ` line"
        text = text.replace(lines[0], f"{key} = {value}")
    f.write_text(text)
    return f


def test_reproduce_runs_the_on_board_cache_study_as_the_cli_does(wafer_bin, tmp_path):
    # apu is a study file with [board]: the same front end, the same verdicts. The
    # options given override the file's (3 replicates and both views in its quick form).
    study = reduced_apu(wafer_bin, tmp_path)
    opts = {"replicates": 1, "measure": "as-captured", "jobs": 2}
    found = wafer.reproduce(study, out=tmp_path / "py", **opts)
    cli = subprocess.run(
        [wafer_bin, "reproduce", str(study), "--replicates", "1"]
        + ["--measure", "as-captured", "-j", "2", "-o", str(tmp_path / "cli")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = [ln.strip() for ln in cli.splitlines() if ln.strip().startswith("verdict: ")]
    assert printed == [ln.strip() for ln in found["printed"] if ln.strip().startswith("verdict: ")]
    judged = [v for v in found["verdicts"] if v["verdict"] != "no verdict"]
    assert len(judged) == len(printed) == 13
    # 6 workloads x (no cache + 2 sizes x 2 ways x 3 APU settings) + 2 x 2 thresholds.
    assert len(found["rows"]) == 82
    assert "82 cells: computed 82, reused 0" in cli
    assert {r["measure"] for r in found["rows"]} == {"as-captured"}
    assert (tmp_path / "py" / "report.html").is_file()


def test_reproduce_refuses_an_unknown_study(tmp_path):
    with pytest.raises(ValueError, match="unknown paper preset"):
        wafer.reproduce("craww", out=tmp_path / "x")
