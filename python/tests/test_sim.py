"""The same simulation through Python and through `wafer sim --json`."""

from __future__ import annotations

import json
import subprocess

import wafer
from conftest import trace


def cli_sim(wafer_bin: str, args: list[str]) -> list[dict]:
    out = subprocess.run(
        [wafer_bin, "sim", "--json", *args], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out)


def test_python_equals_cli(wafer_bin):
    path = str(trace("cloudphysics/cloudPhysicsIO.vscsi"))
    cases = [
        ("lru", "16MiB", {}),
        ("2q:kin=0.3", "5%", {"block": "256KiB", "flush_at_end": True}),
        ("fab", "2048p", {"warmup": 10000, "write_miss_fetch": True}),
    ]
    for policy, cache, kw in cases:
        args = ["-t", path, "-p", policy, "-c", cache]
        if "block" in kw:
            args += ["--block", kw["block"]]
        if kw.get("flush_at_end"):
            args.append("--flush-at-end")
        if kw.get("write_miss_fetch"):
            args.append("--write-miss-fetch")
        if "warmup" in kw:
            args += ["--warmup", str(kw["warmup"])]
        [cli] = cli_sim(wafer_bin, args)
        py = wafer.simulate(path, policy, cache, **kw)
        assert py == cli, policy
        assert 0 < py["metrics"]["hit_ratio"] < 1


def test_record_granularity_equals_cli(wafer_bin):
    path = str(trace("cloudphysics/cloudPhysicsIO.oracleGeneral.bin"))
    [cli] = cli_sim(wafer_bin, ["-t", path, "--granularity", "record", "-p", "lru", "-c", "1000p"])
    assert wafer.simulate(wafer.open_trace(path), "lru", "1000p", granularity="record") == cli
