"""Bounds and failures from Python: running out of memory is a MemoryError (not an
abort of the interpreter), Ctrl-C stops a long simulate at once, NumPy scalars are
accepted where Python numbers are, and wrong types name their keyword."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import wafer
from conftest import ROOT

TRACE = str(ROOT / "traces" / "fileserver.wtr")

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc"
)


def wide_trace(dir: Path, n: int) -> str:
    """`n` writes of 1 GiB each: a few hundred bytes on disk, 262,144 distinct pages
    per request."""
    p = dir / "wide.csv"
    rows = [f"{i},W,0,{i << 30},{1 << 30}" for i in range(n)]
    p.write_text("time_ns,op,dev,offset,len\n" + "\n".join(rows) + "\n")
    return str(p)


def child(code: str, *args: str) -> subprocess.Popen[str]:
    """A Python process running `code`, so that a crash or a hang does not take the
    test run with it."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_trace_beyond_the_memory_limit_raises_memory_error(tmp_path, monkeypatch):
    monkeypatch.setenv("WAFER_MAX_MEMORY", "64MiB")
    trace = wide_trace(tmp_path, 12)
    # An offline policy needs the trace prepared in memory: refused at the limit.
    with pytest.raises(MemoryError, match="would take more than the limit of 64 MiB") as e:
        wafer.simulate(trace, "opt", "64p")
    assert "wide.csv" in str(e.value)
    assert "WAFER_MAX_MEMORY=SIZE" in str(e.value)
    # One online cell streams it (nothing is prepared), as stream=True does.
    row = wafer.simulate(trace, "lru", "64p")
    streamed = wafer.simulate(trace, "lru", "64p", stream=True)
    for r in (row, streamed):
        r.pop("elapsed_s")
    assert row == streamed
    assert row["footprint_pages"] == 3 << 20


@linux_only
def test_running_out_of_memory_raises_memory_error_not_abort(tmp_path):
    # Formerly the failed allocation aborted the interpreter (SIGABRT): preparing,
    # and then streaming a single cell, whose densifier could not grow.
    p = child(
        """
        import resource, sys, wafer
        with open("/proc/self/status") as f:
            vm = next(int(l.split()[1]) for l in f if l.startswith("VmSize:")) * 1024
        # 256 MiB more address space: the densifier of 16 M pages needs about 640 MiB.
        limit = vm + (256 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for stream in (False, True):
            try:
                wafer.simulate(sys.argv[1], "lru", "64p", jobs=1, stream=stream)
            except MemoryError as e:
                print(e, flush=True)
            else:
                print("no MemoryError", flush=True)
        sys.exit(3)
        """,
        wide_trace(tmp_path, 64),
    )
    out, err = p.communicate(timeout=120)
    assert p.returncode == 3, (p.returncode, out, err)
    lines = out.splitlines()
    assert len(lines) == 2, out
    for line in lines:
        assert line.startswith(f"out of memory while densifying {tmp_path / 'wide.csv'}: "), out
        assert "could not allocate " in line and "distinct pages so far)" in line, out


def test_ctrl_c_stops_a_long_simulate_at_once():
    # 5 policies x 19,000 sizes: minutes of work. Formerly Ctrl-C took effect only
    # when the call returned.
    # The child takes Ctrl-C as an interactive Python does, whatever it inherits: a
    # shell that starts a job in the background without job control ignores SIGINT
    # for it, and Python then leaves SIGINT ignored.
    p = child(
        """
        import signal, sys, wafer
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sizes = [f"{i}p" for i in range(16, 19016)]
        print("started", flush=True)
        try:
            wafer.simulate(sys.argv[1], ["lru", "clock", "arc", "fifo", "sieve"], sizes, jobs=1)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(5)
        print("finished", flush=True)
        """,
        TRACE,
    )
    assert p.stdout is not None
    assert p.stdout.readline() == "started\n"
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("simulate went on after Ctrl-C")
    assert p.returncode == 5, (p.returncode, out, err)
    assert out == "interrupted\n"
    assert time.monotonic() - sent < 3


def test_numpy_scalars_are_accepted_as_numbers():
    plain = wafer.simulate(TRACE, "lru", 65536, warmup=100, jobs=1, block=1 << 20)
    numpy = wafer.simulate(
        TRACE,
        np.str_("lru"),
        np.int64(65536),
        warmup=np.uint32(100),
        jobs=np.int64(1),
        block=np.int64(1 << 20),
        flush_at_end=np.bool_(False),
    )
    for row in (plain, numpy):
        row.pop("elapsed_s")
    assert numpy == plain
    # A list of sizes may be a NumPy array.
    rows = wafer.simulate(TRACE, "lru", np.array([65536, 131072]), jobs=1)
    assert [r["cache"] for r in rows] == ["65536", "131072"]
    curve = wafer.curve(
        TRACE, "lru", method="shards", rate=np.float64(0.5), points=np.int64(5), seed=np.int8(1)
    )
    assert {r["rate"] for r in curve} == {0.5}
    assert wafer.open_trace(TRACE).info(page_size=np.int64(4096))["requests"] > 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wafer.simulate(TRACE, "lru", b"16MiB"), "cache=: expected a size"),
        (lambda: wafer.simulate(TRACE, "lru", 1.5), "cache=: expected a size"),
        (lambda: wafer.simulate(TRACE, b"lru", "16MiB"), "policy=: expected a string"),
        (lambda: wafer.simulate(TRACE, "lru", "16MiB", jobs=2.0), "jobs=: expected an int"),
        (lambda: wafer.simulate(TRACE, "lru", "16MiB", block=True), "block=: expected a size"),
        (
            lambda: wafer.simulate(TRACE, "lru", "16MiB", warmup=np.float64(1)),
            "warmup=: expected an int (or a NumPy integer), found float64",
        ),
        (lambda: wafer.curve(TRACE, rate="0.1"), "rate=: expected a number"),
        (lambda: wafer.curve(TRACE, points=np.float32(10)), "points=: expected an int"),
        (lambda: wafer.simulate(12, "lru", "16MiB"), "trace=: expected a path"),
        (lambda: wafer.open_trace(TRACE).batches(size=b"1"), "size=: expected an int"),
    ],
)
def test_wrong_types_name_the_keyword_and_what_it_accepts(call, message):
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_jobs_beyond_the_cores_run_one_per_core(capfd):
    rows = wafer.simulate(TRACE, ["lru", "clock"], ["64p", "128p"], jobs=10**6)
    assert len(rows) == 4
    assert "1000000 jobs asked for, more than the" in capfd.readouterr().err


def test_a_grid_beyond_the_cell_limit_is_refused_before_it_runs():
    sizes = [f"{i}p" for i in range(1, 50_002)]
    with pytest.raises(ValueError, match="the grid has 100002 cells") as e:
        wafer.simulate(TRACE, ["lru", "clock"], sizes)
    assert "max_cells=100002" in str(e.value)
