"""The engine options are one declaration in the core (wafer_lab::options): the
keywords of simulate() and curve() are its names, with its defaults and its former
spellings, refuse what the CLI refuses with the same message, and the stub lists
exactly them."""

from __future__ import annotations

import ast
import subprocess

import pytest
import wafer
from conftest import ROOT

TRACE = str(ROOT / "traces" / "fileserver.wtr")


def stub_defaults() -> dict[str, object]:
    """The keywords and defaults of the engine_options stub in _wafer.pyi, in order."""
    tree = ast.parse((ROOT / "python" / "wafer" / "_wafer.pyi").read_text())
    [fn] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "engine_options"]
    args = fn.args
    return {
        a.arg: ast.literal_eval(d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
    }


def test_the_stub_lists_exactly_the_options_with_their_defaults():
    table = wafer.engine_option_table()
    assert stub_defaults() == {o["name"]: o["default"] for o in table}
    assert list(stub_defaults()) == [o["name"] for o in table]
    assert wafer.engine_options() == {o["name"]: o["default"] for o in table}
    for o in table:
        assert o["flag"] == "--" + o["name"].replace("_", "-")
        assert o["doc"], o["name"]


def other_value(o: dict) -> object:
    return {
        "size": "8KiB",
        "int": 7,
        "bool": True,
        "text": next((c for c in o["choices"] if c != o["default"]), None),
    }[o["kind"]]


def test_every_name_and_former_spelling_means_the_same():
    for o in wafer.engine_option_table():
        v = other_value(o)
        want = wafer.engine_options(**{o["name"]: v})
        assert want[o["name"]] != o["default"], o["name"]
        for alias in o["aliases"]:
            assert wafer.engine_options(**{alias: v}) == want, alias


def test_an_unknown_keyword_names_the_valid_ones():
    names = [o["name"] for o in wafer.engine_option_table()]
    for call in (
        lambda: wafer.simulate(TRACE, "lru", "1MiB", colour=1),
        lambda: wafer.curve(TRACE, colour=1),
        lambda: wafer.engine_options(colour=1),
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument 'colour'") as e:
            call()
        assert all(n in str(e.value) for n in names), e.value


@pytest.mark.parametrize(
    ("keyword", "value", "flag"),
    [
        ("block_size", "3KiB", "--block-size"),
        ("block", "3KiB", "--block"),
        ("page_size", "3000", "--page-size"),
        ("t_read_ns", 2_000_000_000, "--t-read-ns"),
    ],
)
def test_a_bad_value_is_refused_with_the_cli_message(wafer_bin, keyword, value, flag):
    with pytest.raises(ValueError) as e:
        wafer.simulate(TRACE, "lru", "1MiB", **{keyword: value})
    cli = subprocess.run(
        [wafer_bin, "sim", "-t", TRACE, "-p", "lru", "-c", "1MiB", flag, str(value)],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2, cli.stderr
    canonical = "block_size" if keyword == "block" else keyword
    # Both name the option by its one name, then give the same message.
    assert str(e.value).startswith(f"{canonical}: "), e.value
    assert cli.stderr.startswith(f"wafer: --{canonical.replace('_', '-')}: "), cli.stderr
    assert cli.stderr.strip().split(": ", 2)[2] == str(e.value).split(": ", 1)[1]


def test_the_cost_model_and_series_reach_the_rows(wafer_bin):
    import json

    kw = {"t_read_ns": 1000, "t_write_ns": 3000, "series_every": 500}
    row = wafer.simulate(TRACE, "craw", "1MiB", **kw)
    cli = subprocess.run(
        [wafer_bin, "sim", "--json", "-t", TRACE, "-p", "craw", "-c", "1MiB"]
        + ["--t-read-ns", "1000", "--t-write-ns", "3000", "--series-every", "500"],
        check=True,
        capture_output=True,
        text=True,
    )
    [want] = json.loads(cli.stdout)
    assert (row["t_read_ns"], row["t_write_ns"]) == (1000, 3000)
    for r in (row, want):
        r.pop("elapsed_s")
        r.pop("series", None)
    assert row == want
    # A curve has no use for them, and says so.
    with pytest.raises(ValueError, match="t_read_ns: a curve counts page reads"):
        wafer.curve(TRACE, t_read_ns=1000)
    with pytest.raises(ValueError, match="series_every: a curve samples no policy series"):
        wafer.curve(TRACE, series_every=5)


def test_numpy_values_and_types_are_checked_by_kind():
    import numpy as np

    assert wafer.engine_options(block_size=np.int64(1 << 20))["block_size"] == str(1 << 20)
    with pytest.raises(TypeError, match="warmup=: expected an int"):
        wafer.engine_options(warmup=1.5)
    with pytest.raises(TypeError, match="flush_at_end=: expected True or False"):
        wafer.engine_options(flush_at_end="yes")
