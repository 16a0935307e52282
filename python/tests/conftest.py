"""Shared fixtures: the repository root, the shared test traces and the CLI binary."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if os.environ.get("WAFER_TRACES"):
    TRACES = Path(os.environ["WAFER_TRACES"])
else:
    TRACES = ROOT.parent / "shared" / "traces"


def trace(rel: str) -> Path:
    """A test trace: one the repository carries (its own captures under traces/, the
    third-party samples it may redistribute under traces/third-party), else one of the
    public traces folder. Where it is absent the test is skipped with
    the file named (`pytest -rs` lists the reasons), unless CI=true or
    WAFER_REQUIRE_TRACES=1, where it fails: CI always has the folder."""
    for bundled in (ROOT / "traces" / rel, ROOT / "traces" / "third-party" / rel):
        if bundled.is_file():
            return bundled
    p = TRACES / rel
    if not p.exists():
        if os.environ.get("CI") == "true" or os.environ.get("WAFER_REQUIRE_TRACES") == "1":
            pytest.fail(f"test trace {p} is missing: CI needs the public traces folder")
        pytest.skip(
            f"needs {p} (a third-party trace the repository does not carry; "
            "set WAFER_TRACES or put shared/traces beside the clone)"
        )
    return p


@pytest.fixture(scope="session")
def wafer_bin() -> str:
    """The CLI: $WAFER_BIN, else target/debug/wafer brought up to date with cargo, so
    that it runs the same core as the extension. It is the binary `cargo test
    --workspace` builds (the test profile: optimised), so after that command, as in
    `make test`, this is a no-op; `cargo build` would compile the workspace again,
    unoptimised, into the same path."""
    env = os.environ.get("WAFER_BIN")
    if env:
        return env
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("no wafer binary: set WAFER_BIN or install cargo")
    subprocess.run([cargo, "test", "-q", "--workspace", "--no-run"], cwd=ROOT, check=True)
    # Where cargo put it: $CARGO_TARGET_DIR (relative to the repository) if set.
    target = ROOT / os.environ.get("CARGO_TARGET_DIR", "target")
    return str(target / "debug" / "wafer")


def write_experiment(
    dir: Path,
    *,
    policies: list[str],
    sizes: list[str],
    devices: list[str],
    traces: list[str],
    address_map: str = "compact",
) -> Path:
    """A small experiment file over shared traces (absolute paths)."""
    lines = ['name = "python test grid"', "traces = ["]
    lines += [f'  {{ path = "{trace(t)}" }},' for t in traces]
    lines += ["]"]
    lines.append("policies = [" + ", ".join(f'"{p}"' for p in policies) + "]")
    lines.append("cache_sizes = [" + ", ".join(f'"{s}"' for s in sizes) + "]")
    lines.append("devices = [" + ", ".join(f'"{d}"' for d in devices) + "]")
    lines.append(f'address_map = "{address_map}"')
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
