"""The report page in a real browser: headless Chromium opens it from disk without a console
message (the page has no script, and its Content-Security-Policy turns any attempted fetch
into one), and its screenshot is not blank. Skipped where Chromium is not installed
(`apt-get install -y chromium`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_arena.cli import main

from test_results_fixtures import run_bench, run_offline

pytest.importorskip("matplotlib")
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install -y chromium)")]

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
# --disable-dev-shm-usage: containers often give /dev/shm 64 MB, too little for a renderer.
# Chromium logs what a page writes to its console as `[pid:tid:time:INFO:CONSOLE:line] "text", source: url`
# (older releases: `CONSOLE(line)`).
CONSOLE = re.compile(r"^\[[^\]]*:CONSOLE[:(][^\]]*\]\s*(.*)$")


def open_page(page: Path, tmp: Path, screenshot: Path, size: str = "1200,1600") -> list[str]:
    """Open `page` from disk, save a screenshot; returns the console messages."""
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp / 'profile'}", f"--window-size={size}",
                           f"--screenshot={screenshot}", page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return [m.group(1) for line in done.stderr.splitlines() if (m := CONSOLE.match(line))]


def test_console_scan_sees_errors(tmp_path):
    """Control: a page with a failing script and a blocked fetch does produce messages."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                   "content=\"default-src 'none'; img-src data:; script-src 'unsafe-inline'\"></head><body>"
                   '<img src="http://127.0.0.1:9/x.png"><script>missing();</script></body></html>')
    messages = open_page(bad, tmp_path, tmp_path / "bad.png", size="400,300")
    assert any("missing is not defined" in m for m in messages), messages
    assert any("Content Security Policy" in m for m in messages), messages


def test_report_opens_clean_and_renders(tmp_path):
    import matplotlib.image

    offline = run_offline(tmp_path / "offline.json")
    bench = run_bench(tmp_path / "bench", systems="grep")
    out = tmp_path / "report"
    assert main(["report", str(offline), str(bench), "--out", str(out)]) == 0
    shot = tmp_path / "shot.png"
    messages = open_page(out / "report.html", tmp_path, shot)
    assert messages == []
    pixels = matplotlib.image.imread(shot)[:, :, :3]
    assert pixels.shape[:2] == (1600, 1200)
    flat = pixels.reshape(-1, 3)
    colours = {tuple(p) for p in (flat[::11] * 255).round().astype(int).tolist()}
    assert len(colours) > 100  # text, tables, chart colours and hatches
    ink = (flat.min(axis=1) < 0.9).mean()
    assert 0.03 < ink < 0.9, ink  # neither blank nor a solid fill
