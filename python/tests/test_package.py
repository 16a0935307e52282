"""Packaging: versions and error reporting."""

from __future__ import annotations

import tomllib

import pytest
import wafer
from conftest import ROOT


def test_version_equals_the_rust_crates():
    with open(ROOT / "Cargo.toml", "rb") as f:
        workspace = tomllib.load(f)["workspace"]["package"]["version"]
    with open(ROOT / "python" / "Cargo.toml", "rb") as f:
        binding = tomllib.load(f)["package"]["version"]
    assert wafer.__version__ == workspace == binding
    assert wafer.LAB_VERSION == workspace


def test_errors_are_python_exceptions_with_one_line(tmp_path):
    with pytest.raises(OSError) as e:
        wafer.open_trace(tmp_path / "missing.csv")
    assert "missing.csv" in str(e.value) and "\n" not in str(e.value)
    bad = tmp_path / "bad.toml"
    bad.write_text("policies = [\n")
    with pytest.raises((ValueError, wafer.WaferError)) as e:
        wafer.run_experiment(bad, tmp_path / "out")
    assert "bad.toml" in str(e.value)
    with pytest.raises(ValueError, match="nosuchpolicy"):
        wafer.simulate(ROOT / "Cargo.toml", "nosuchpolicy", "1MiB")


def test_the_distribution_has_a_name_of_its_own():
    # `wafer` on the public package index is an unrelated project.
    from importlib import metadata

    assert metadata.distribution("wafer-flash").version == wafer.__version__


def test_the_package_installs_the_wafer_command(wafer_bin):
    """`pip install` puts a `wafer` command next to the interpreter; it is the CLI
    (same output as the cargo-built binary)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "wafer"
    cmd = str(exe) if exe.exists() else shutil.which("wafer")
    assert cmd, "no wafer command installed with the package"
    path = str(ROOT / "traces" / "fileserver.wtr")
    args = ["sim", "-t", path, "-p", "lru,clock", "-c", "5%,1MiB"]
    got = subprocess.run([cmd, *args], capture_output=True, text=True, check=True).stdout
    want = subprocess.run([wafer_bin, *args], capture_output=True, text=True, check=True).stdout
    assert got == want and "hit ratio" in got
    bad = subprocess.run([cmd, "sim", "-t", path, "-p", "lru", "-c", "0"], capture_output=True)
    assert bad.returncode == 2
    mod = subprocess.run([sys.executable, "-m", "wafer", "--version"], capture_output=True)
    assert mod.returncode == 0 and b"wafer" in mod.stdout
