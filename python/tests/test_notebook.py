"""The notebook-style example runs and writes its figures."""

from __future__ import annotations

import runpy
import sys

from conftest import ROOT


def test_notebook_example_writes_a_figure(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["notebook.py", str(tmp_path)])
    runpy.run_path(str(ROOT / "examples" / "notebook.py"), run_name="__main__")
    png = tmp_path / "hit_ratio.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert (tmp_path / "device_wear.png").exists()
    printed = capsys.readouterr().out
    assert "6999 requests" in printed and "lb-clock" in printed
