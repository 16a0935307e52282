"""Shared fixtures: the repository root, the shared test traces and the CLI binary."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT.parent.parent / "shared" / "traces"
if not TRACES.is_dir():
    TRACES = ROOT.parent / "shared" / "traces"


def trace(rel: str) -> Path:
    """A shared test trace; fails loudly when the folder is missing (CI always has it)."""
    p = TRACES / rel
    if not p.exists():
        raise FileNotFoundError(f"test trace {p} is missing: the shared traces folder is needed")
    return p


@pytest.fixture(scope="session")
def wafer_bin() -> str:
    """The CLI: $WAFER_BIN, else target/debug/wafer brought up to date with cargo (a
    no-op after `cargo test`), so that it runs the same core as the extension."""
    env = os.environ.get("WAFER_BIN")
    if env:
        return env
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("no wafer binary: set WAFER_BIN or install cargo")
    subprocess.run([cargo, "build", "-q", "-p", "wafer-cli"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "debug" / "wafer")


def write_experiment(
    dir: Path, *, policies: list[str], sizes: list[str], devices: list[str], traces: list[str]
) -> Path:
    """A small experiment file over shared traces (absolute paths)."""
    lines = ['name = "python test grid"', "traces = ["]
    lines += [f'  {{ path = "{trace(t)}" }},' for t in traces]
    lines += ["]"]
    lines.append("policies = [" + ", ".join(f'"{p}"' for p in policies) + "]")
    lines.append("cache_sizes = [" + ", ".join(f'"{s}"' for s in sizes) + "]")
    lines.append("devices = [" + ", ".join(f'"{d}"' for d in devices) + "]")
    lines += [
        'page_size = "4KiB"',
        'block_size = "256KiB"',
        "[outputs]",
        'figures = ["hit-ratio"]',
        "report = false",
    ]
    p = dir / "exp.toml"
    p.write_text("\n".join(lines) + "\n")
    return p
