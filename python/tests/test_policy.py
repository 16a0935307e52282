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
