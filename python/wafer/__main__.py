"""The ``wafer`` command, installed with the package (``python -m wafer`` too): the same
command as the ``wafer`` binary, run by the Rust core in this process."""

from __future__ import annotations

import os
import sys

from . import _wafer


def main() -> None:
    """Run ``wafer`` with this process's arguments and exit with its status."""
    # `wafer run --dask` starts this interpreter, which has the package.
    os.environ.setdefault("WAFER_PYTHON", sys.executable)
    sys.exit(_wafer.cli(["wafer", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
