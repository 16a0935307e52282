"""Curves through Python and through `wafer curve`: the same rows."""

from __future__ import annotations

import csv
import subprocess

import pytest
import wafer
from conftest import ROOT

PGBENCH = str(ROOT / "traces" / "pgbench.wtr")


def cli_rows(wafer_bin: str, args: list[str], tmp_path) -> list[dict[str, str]]:
    out = tmp_path / "curve.csv"
    subprocess.run(
        [wafer_bin, "curve", "-t", PGBENCH, "--csv", str(out), *args],
        check=True,
        capture_output=True,
    )
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def same(py: object, text: str) -> bool:
    """A Python value against the CSV's text of it: numbers exactly."""
    if py is None:
        return text == ""
    if isinstance(py, bool):
        return text == str(py).lower()
    if isinstance(py, (int, float)):
        return float(text) == py
    return text == py


@pytest.mark.parametrize(
    "args,kw",
    [
        (["-p", "lru,ts-clock", "--points", "12"], {"policy": ["lru", "ts-clock"], "points": 12}),
        (
            ["-p", "lru", "--method", "exact,shards", "--rate", "0.1", "--flush-at-end"],
            {"method": ["exact", "shards"], "rate": 0.1, "flush_at_end": True},
        ),
        (
            ["-p", "cflru", "--sizes", "100p,5%", "--sample-unit", "block", "--seed", "3"],
            {"policy": "cflru", "sizes": ["100p", "5%"], "sample_unit": "block", "seed": 3},
        ),
    ],
)
def test_python_rows_are_the_cli_rows(wafer_bin, tmp_path, args, kw):
    cli = cli_rows(wafer_bin, args, tmp_path)
    py = wafer.curve(PGBENCH, **kw)
    assert len(py) == len(cli) > 0
    for p, c in zip(py, cli, strict=True):
        assert list(p) == list(c), "columns in the CSV's order"
        bad = {k: (p[k], c[k]) for k in c if not same(p[k], c[k])}
        assert not bad, bad


def test_a_dataframe_has_the_csv_columns(wafer_bin, tmp_path):
    cli = cli_rows(wafer_bin, ["-p", "lru,arc", "--points", "5"], tmp_path)
    df = wafer.curve(PGBENCH, ["lru", "arc"], points=5, engine="pandas")
    assert list(df.columns) == list(cli[0])
    assert len(df) == len(cli)
    assert set(df["method"]) == {"exact", "minisim"}
    lru = df[df["policy"] == "lru"]
    assert len(lru) == 5
    # Exact LRU: misses never rise with the cache.
    assert lru["misses"].is_monotonic_decreasing


def test_bad_arguments_name_the_keyword():
    cases = [
        ({"policy": "arc", "method": "exact"}, "method: exact: only LRU"),
        ({"method": "shards", "rate": 2.0}, "rate: 2 is not in (0, 1]"),
        ({"rate": 0.1}, "rate: applies to methods shards and minisim only"),
        ({"method": "nope"}, "method: unknown method `nope`"),
        ({"sizes": ["12 apples"]}, "sizes: "),
        ({"sample_unit": "sector", "method": "minisim"}, "sample_unit="),
        ({"points": 0}, "points: at least one size"),
    ]
    for kw, msg in cases:
        with pytest.raises(ValueError, match="^" + msg.replace("(", r"\(").replace(")", r"\)")):
            wafer.curve(PGBENCH, **kw)
    with pytest.raises(OSError):
        wafer.curve(str(ROOT / "no-such.wtr"))
