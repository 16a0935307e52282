"""Trace batches against `wafer trace head`, and info against `wafer trace info --json`."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import wafer
from conftest import trace

LETTERS = {0: "R", 1: "W", 2: "T"}
NO_TIME = np.iinfo(np.uint64).max


def head(wafer_bin: str, path, n: int) -> list[list[str]]:
    out = subprocess.run(
        [wafer_bin, "trace", "head", str(path), "-n", str(n)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line.split() for line in out.splitlines()[1:]]


def rows(batch: dict[str, np.ndarray]) -> list[list[str]]:
    return [
        ["-" if t == NO_TIME else str(t), LETTERS[int(o)], str(d), str(off), str(ln)]
        for t, o, d, off, ln in zip(
            batch["time_ns"],
            batch["op"],
            batch["dev"],
            batch["offset"],
            batch["len"],
            strict=True,
        )
    ]


def test_batches_equal_trace_head(wafer_bin):
    for rel in (
        "disksim/tpcc-small.trace",
        "fiu/fiu_mail_cheetah_10k.blkparse",
        "cloudphysics/cloudPhysicsIO.oracleGeneral.bin",
    ):
        path = trace(rel)
        t = wafer.open_trace(path)
        got = []
        for b in t.batches(333):  # batch size unrelated to the reader's own
            assert len(b["op"]) <= 333
            got += rows(b)
            if len(got) >= 2000:
                break
        assert got[:2000] == head(wafer_bin, path, 2000), rel


def test_batches_cover_the_whole_trace_once():
    t = wafer.open_trace(trace("disksim/tpcc-small.trace"))
    sizes = [len(b["op"]) for b in t.batches(1000)]
    assert sum(sizes) == 6999 and all(s == 1000 for s in sizes[:-1])
    whole = t.read()
    assert whole["offset"].dtype == np.uint64 and len(whole["offset"]) == 6999


def test_info_equals_trace_info_json(wafer_bin):
    path = trace("fiu/fiu_mail_cheetah_10k.blkparse")
    cli = json.loads(
        subprocess.run(
            [wafer_bin, "trace", "info", str(path), "--json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    assert wafer.open_trace(path).info() == cli
