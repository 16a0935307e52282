"""The same simulation through Python and through `wafer sim --json`."""

from __future__ import annotations

import json
import subprocess

import pytest
import wafer
from conftest import trace


def untimed(rows):
    """Rows without the wall-clock column (the only one that may differ)."""
    if isinstance(rows, dict):
        return {k: v for k, v in rows.items() if k != "elapsed_s"}
    return [untimed(r) for r in rows]


def cli_sim(wafer_bin: str, args: list[str]) -> list[dict]:
    out = subprocess.run(
        [wafer_bin, "sim", "--json", *args], check=True, capture_output=True, text=True
    ).stdout
    return untimed(json.loads(out))


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
        py = untimed(wafer.simulate(path, policy, cache, **kw))
        # Every column, floats to the last bit.
        assert py == cli, policy
        assert 0 < py["hit_ratio"] < 1


def test_record_granularity_equals_cli(wafer_bin):
    path = str(trace("cloudphysics/cloudPhysicsIO.oracleGeneral.bin"))
    [cli] = cli_sim(wafer_bin, ["-t", path, "--granularity", "record", "-p", "lru", "-c", "1000p"])
    got = wafer.simulate(wafer.open_trace(path), "lru", "1000p", granularity="record")
    assert untimed(got) == cli


def test_a_grid_in_one_call_equals_the_cli(wafer_bin):
    """Several policies x sizes (an int of bytes among them) over one decoded trace:
    the rows the CLI prints, in the same order, bit for bit."""
    path = str(trace("fileserver.wtr"))
    cli = cli_sim(wafer_bin, ["-t", path, "-p", "lru,ts-clock", "-c", "1MiB,5%"])
    py = wafer.simulate(path, ["lru", "ts-clock"], [1 << 20, "5%"], jobs=2)
    assert [r["policy"] for r in py] == ["lru", "lru", "ts-clock", "ts-clock"]
    # The int is bytes: the same cell as "1048576"; the CLI was given "1MiB".
    for r in py + cli:
        r.pop("cache")
        r.pop("cell_id")
    assert untimed(py) == cli


def test_address_maps_equal_the_cli(wafer_bin):
    """The keyword `address_map` is `wafer sim --map`: the same rows, which name the map
    and count the operations it moved (compact is the default of both)."""
    path = str(trace("fileserver.wtr"))
    for m in ["compact", "wrap"]:
        [cli] = cli_sim(
            wafer_bin, ["-t", path, "-p", "lru", "-c", "1MiB", "-d", "microsd-16g", "--map", m]
        )
        py = untimed(wafer.simulate(path, "lru", "1MiB", device="microsd-16g", address_map=m))
        assert py == cli, m
        assert py["address_map"] == m and py["ftl_remapped_ops"] >= 0
    default = untimed(wafer.simulate(path, "lru", "1MiB", device="microsd-16g"))
    assert default["address_map"] == "compact"
    assert untimed(wafer.simulate(path, "lru", "1MiB"))["address_map"] is None


def test_invalid_values_are_refused_with_the_cli_message(wafer_bin):
    """Every value `wafer sim` refuses is refused by the keywords with the same message
    after the location (`--page-size: ...` / `page_size: ...`)."""
    path = str(trace("fileserver.wtr"))
    cases = [
        ({"page_size": "3000"}, ["--page-size", "3000"]),
        ({"block_size": "6KiB"}, ["--block-size", "6KiB"]),
        ({"cache": "0"}, ["-c", "0"]),
        ({"cache": 100}, ["-c", "100"]),
        ({"cache": "0.01"}, ["-c", "0.01"]),
        ({"policy": ["lru", "lru"]}, ["-p", "lru,lru"]),
        ({"address_map": "fold"}, ["--map", "fold"]),
    ]
    for kw, flags in cases:
        args = {"policy": "lru", "cache": "1MiB", **kw}
        with pytest.raises(ValueError) as e:
            wafer.simulate(path, **args)
        py = str(e.value)
        key = next(iter(kw))
        assert py.startswith(f"{key}: "), py
        cli_args = [wafer_bin, "sim", "-t", path]
        cli_args += [] if "-p" in flags else ["-p", "lru"]
        cli_args += [] if "-c" in flags else ["-c", "1MiB"]
        cli = subprocess.run(cli_args + flags, capture_output=True, text=True)
        assert cli.returncode == 2, cli.stderr
        assert cli.stderr.count("\n") == 1 and "\n" not in py
        assert cli.stderr.strip().split(": ", 2)[2] == py.split(": ", 1)[1], (cli.stderr, py)


def test_policies_and_devices_list_the_registries():
    names = [p["name"] for p in wafer.policies()]
    assert "lru" in names and "ts-clock" in names
    fab = next(p for p in wafer.policies() if p["name"] == "fab")
    assert fab["block_aware"] and fab["citation"]
    devs = {d["name"]: d for d in wafer.devices()}
    assert "microsd-16g" in devs and devs["microsd-16g"]["ftl"]


def test_a_custom_text_trace_through_a_mapping_equals_the_cli(wafer_bin, tmp_path):
    """The mapping keywords are the experiment file's keys; the CLI's flags are the
    same names with dashes. Both read the same requests and give the same rows."""
    t = tmp_path / "t.csv"
    lines = ["ts,op,lba,blocks"]
    lines += [f"{i * 10},{'W' if i % 3 else 'R'},{(i * 7919) % 4096 * 8},8" for i in range(3000)]
    t.write_text("\n".join(lines) + "\n")
    mapping = {
        "delimiter": ",",
        "skip_lines": 1,
        "time_col": 0,
        "op_col": 1,
        "offset_col": 2,
        "len_col": 3,
        "units": "sectors",
        "time_unit": "us",
    }
    flags = []
    for k, v in mapping.items():
        flags += [f"--{k.replace('_', '-')}", str(v)]
    cli = cli_sim(wafer_bin, ["-t", str(t), "-p", "lru,clock", "-c", "1MiB", *flags])
    py = wafer.simulate(t, ["lru", "clock"], "1MiB", mapping=mapping)
    assert untimed(py) == cli
    assert cli[0]["format"].startswith("generic") and cli[0]["page_writes"] > 0


def test_a_missing_trace_is_an_oserror_naming_it(tmp_path):
    # As documented (docs/python.md): a missing file is an OSError, in every call.
    missing = tmp_path / "nope.csv"
    for call in (
        lambda: wafer.simulate(missing, policy="lru", cache="1MiB"),
        lambda: wafer.curve(missing),
        lambda: wafer.Trace(missing),
    ):
        with pytest.raises(OSError, match="nope.csv"):
            call()
