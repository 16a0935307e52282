"""Policies written in Python: the examples equal their built-in counterparts, wrong
answers stop the run with one line naming the class and the access."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import wafer
from conftest import ROOT
from wafer.policy import register

BUNDLED = sorted(p.name for p in (ROOT / "traces").glob("*.wtr"))
SIZES = ["1%", "5%", "20%"]


def example(name: str):
    """The module of ``examples/policies/<name>.py``, imported as ``<name>_example``."""
    key = f"{name}_example"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            key, ROOT / "examples" / "policies" / f"{name}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


LRU = example("lru").LRU
CLOCK = example("clock").CLOCK
FAB = example("fab").FAB
PAIRS = [("lru", LRU), ("clock", CLOCK), ("fab", FAB)]

# Columns that name the policy rather than measure it.
NAMING = {"policy", "cell_id", "elapsed_s", "flash_aware"}


def same(a: dict, b: dict) -> None:
    for k in a.keys() - NAMING:
        assert a[k] == b[k], (k, a["policy"], b["policy"], a["cache"])


@pytest.mark.parametrize("trace", BUNDLED)
def test_examples_equal_the_built_in_policies(trace, tmp_path):
    """Counter by counter, FTL erases included (behind a FAST device), and the
    after-cache stream operation by operation."""
    path = ROOT / "traces" / trace
    names = [register(cls) for _, cls in PAIRS]
    policies = [b for b, _ in PAIRS] + names
    rows = wafer.simulate(path, policies, SIZES, device="microsd-16g", address_map="wrap", jobs=2)
    by = {(r["policy"], r["cache"]): r for r in rows}
    for (builtin, _), name in zip(PAIRS, names, strict=True):
        for size in SIZES:
            same(by[(builtin, size)], by[(name, size)])
    assert any(by[("fab", s)]["ftl_erases"] > 0 for s in SIZES)
    # The command, run in this process, sees the registered classes.
    after = str(tmp_path / "{policy}-{cache}.csv")
    argv = ["wafer", "sim", "-t", str(path), "-p", *policies, "-c", *SIZES, "--after", after]
    assert wafer._wafer.cli(argv) == 0

    def file(policy: str, size: str) -> Path:
        # The command's file names: `:` becomes `_`, `%` becomes `pct`.
        return tmp_path / f"{policy.replace(':', '_')}-{size.replace('%', 'pct')}.csv"

    for (builtin, _), name in zip(PAIRS, names, strict=True):
        for size in SIZES:
            want = file(builtin, size).read_bytes()
            assert want.count(b"\n") > 1
            assert file(name, size).read_bytes() == want, (builtin, size)


def test_minisim_curves_take_a_python_policy():
    path = ROOT / "traces" / "pgbench.wtr"
    rows = wafer.curve(path, ["lru", LRU], method="minisim", rate=0.1, sizes=["1000p", "5%"])
    builtin = [r for r in rows if r["policy"] == "lru"]
    mine = [r for r in rows if r["policy"] == register(LRU)]
    assert len(builtin) == len(mine) == 2
    for a, b in zip(builtin, mine, strict=True):
        assert {**a, "policy": None} == {**b, "policy": None}


def test_parameters_are_keyword_arguments_recorded_in_the_rows():
    path = ROOT / "traces" / "sqlite-wal.wtr"
    spec = CLOCK.with_params(insert_ref=0)
    assert spec == "py:clock_example:CLOCK:insert_ref=0"
    a, b = wafer.simulate(path, ["clock:insert_ref=0", spec], "5%")
    assert b["policy"] == spec
    same(a, b)
    with pytest.raises(ValueError, match=r"CLOCK \(py:clock_example:CLOCK\): .*window"):
        wafer.simulate(path, CLOCK.with_params(window=2), "5%")


class Stranger(wafer.Policy):
    """Evicts a page that is not resident."""

    def evict(self):
        return 123456789


class Nothing(wafer.Policy):
    """Evicts nothing while the cache is full."""

    def evict(self):
        return None


class Raises(wafer.Policy):
    """Raises in a hook."""

    def __init__(self, capacity):
        super().__init__(capacity)
        self.seen = []

    def insert(self, page, block, write):
        self.seen.append(page)

    def hit(self, page, block, write):
        raise KeyError(page)

    def evict(self):
        return self.seen.pop(0)


@pytest.mark.parametrize(
    ("cls", "what"),
    [
        (Stranger, r"evict\(\) named page 123456789, which is not resident"),
        (Nothing, r"evict\(\) named no page while the cache is full \(\d+ pages\)"),
        (Raises, r"hit\(\) raised KeyError: \d+ \(test_policy.py:\d+\)"),
    ],
)
def test_a_misbehaving_class_stops_the_run_with_one_line(cls, what):
    path = ROOT / "traces" / "sqlite-wal.wtr"
    with pytest.raises(wafer.WaferError) as e:
        wafer.simulate(path, cls, "64p")
    msg = str(e.value)
    assert "\n" not in msg
    name = f"{cls.__qualname__} \\(py:{__name__}:{cls.__qualname__}\\)"
    assert re.search(f"policy {name} failed at access \\d+: {what}$", msg), msg


def test_the_rust_command_refuses_a_python_policy_with_a_hint(wafer_bin):
    path = ROOT / "traces" / "sqlite-wal.wtr"
    p = subprocess.run(
        [wafer_bin, "sim", "-t", str(path), "-p", "py:examples/policies/lru.py:LRU", "-c", "5%"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2, p.stderr
    assert "python -m wafer run" in p.stderr


def test_a_file_named_policy_runs_under_python_m_wafer():
    """`python -m wafer` runs the command in a Python process, which imports the class
    a `py:path.py:Class` name gives (relative to the working directory)."""
    path = ROOT / "traces" / "sqlite-wal.wtr"
    argv = ["-p", "lru", "py:examples/policies/lru.py:LRU", "-c", "5%", "--json"]
    p = subprocess.run(
        [sys.executable, "-m", "wafer", "sim", "-t", str(path), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    builtin, mine = json.loads(p.stdout)
    assert mine["policy"] == "py:examples/policies/lru.py:LRU"
    same(builtin, mine)


class TsClockLike(wafer.Policy):
    """CLOCK that spares dirty pages longer and writes a dirty victim's whole block of
    dirty pages as one group (the idea of TS-CLOCK, not its exact rules)."""

    def __init__(self, capacity, dirty_chances=1):
        super().__init__(capacity)
        self.dirty_chances = dirty_chances
        self.ring: dict[int, int] = {}  # page -> chances left; the first is under the hand
        self.dirty: dict[int, set[int]] = {}  # block -> its dirty resident pages
        self.block_of: dict[int, int] = {}

    def _touch(self, page, block, write):
        self.block_of[page] = block
        if write:
            self.dirty.setdefault(block, set()).add(page)
        self.ring[page] = 1 + (self.dirty_chances if write else 0)

    def hit(self, page, block, write):
        chances = self.ring[page]
        self._touch(page, block, write)
        self.ring[page] = max(self.ring[page], chances)

    def insert(self, page, block, write):
        self._touch(page, block, write)

    def evict(self):
        ring = self.ring
        while True:
            page = next(iter(ring))
            chances = ring.pop(page)
            if chances:
                ring[page] = chances - 1
                continue
            block = self.block_of.pop(page)
            group = self.dirty.get(block)
            if group is None or page not in group:
                return page
            del self.dirty[block]
            for p in group:
                ring.pop(p, None)
                self.block_of.pop(p, None)
            return sorted(group)

    def remove(self, page, block):
        self.ring.pop(page)
        self.block_of.pop(page)
        if page in self.dirty.get(block, ()):
            self.dirty[block].discard(page)


def study_file(d: Path, policy: str) -> Path:
    """A study with one claim about `policy` against CLOCK, on a bundled trace."""
    p = d / "mine.toml"
    p.write_text(
        f"""name = "mine"
policies = ["clock", "{policy}"]
devices = ["microsd-16g"]
flush_at_end = true

[[groups]]
name = "bundled"
traces = ["{ROOT / "traces" / "pgbench.wtr"}"]
sizes = ["5%", "20%"]
differences = "none"

[[claims]]
text = "writing dirty blocks as groups saves erases against CLOCK"
policy = "{policy}"
baseline = "clock"
metric = "erases"
form = "reduction"
over = "mean"
paper = 0.10
device = "microsd-16g"
differences = "a Python prototype"
"""
    )
    return p


def test_a_python_policy_in_a_study_gets_a_verdict(tmp_path):
    name = TsClockLike.with_params(dirty_chances=2)
    found = wafer.reproduce(study_file(tmp_path, name), out=tmp_path / "out", jobs=2)
    assert {r["policy"] for r in found["rows"]} == {"clock", name}
    (v,) = found["verdicts"]
    assert v["verdict"] and v["why"], v
    mine = [r for r in found["rows"] if r["policy"] == name]
    assert all(r["groups"] > 0 and r["ftl_erases"] > 0 for r in mine)
    assert (tmp_path / "out" / "report.html").is_file()


def test_the_rust_command_refuses_a_study_naming_a_python_policy(wafer_bin, tmp_path):
    # `wafer run` of a study file: the binary cannot load the class and says where to
    # run it.
    study = study_file(tmp_path, "py:examples/policies/lru.py:LRU")
    p = subprocess.run(
        [wafer_bin, "run", str(study), "-o", str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert p.returncode != 0
    assert "python -m wafer run" in p.stderr, p.stderr


def test_a_dask_grid_with_a_python_policy_equals_the_local_rows(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the file's `py:examples/...` name is relative to it
    distributed = pytest.importorskip("dask.distributed")
    # Named in the file, loaded by the driver; this module's class goes by value.
    name = register(TsClockLike)
    exp = tmp_path / "exp.toml"
    traces = ", ".join(
        f'{{ path = "{ROOT / "traces" / t}" }}' for t in ("fileserver.wtr", "sqlite-wal.wtr")
    )
    exp.write_text(
        f"""name = "py grid"
traces = [{traces}]
policies = ["lru", "py:examples/policies/clock.py:CLOCK", "{name}"]
cache_sizes = ["5%", "20%"]
"""
    )
    local = wafer.run_experiment(exp, tmp_path / "local", jobs=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        out = wafer.run_experiment(
            exp, tmp_path / "dask", backend="dask", address=cluster.scheduler_address
        )
    a = wafer.load_results(local).drop(columns=["elapsed_s"])
    b = wafer.load_results(out).drop(columns=["elapsed_s"])
    assert len(a) == 12 and a.equals(b)
    # Resume: every cell is stored, so running again computes none.
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "dask" / "cells").glob("*.json")}
    wafer.run_experiment(exp, tmp_path / "dask", jobs=2)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
