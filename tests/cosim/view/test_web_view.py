"""`cosim view RUN --web` in a real browser: Debian's chromium, headless, driven by Playwright."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import cosim
from cosim.view.scene import PALETTE
from tests.conftest import base_scenario

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1")
EXTERNAL = ("fonts.googleapis.com", "api.github.com", "tel.rerun.io", "app.rerun.io")
"""What Rerun's page asks the internet for (a font, its version check, usage statistics, examples);
blocked here, each leaving a network error in the console and nothing else."""


@pytest.fixture(scope="module")
def viewed_run(tmp_path_factory):
    data = base_scenario(duration=2.0, world={"arena_lower": [-30, -30, 0], "arena_upper": [30, 30, 10]},
                         output={"trace": {"positions_every": 0.5}, "view": {"every": "100 ms"}})
    data["groups"][0]["robot"] = {"radius": 0.6}
    return cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path_factory.mktemp("web") / "run")


def _serve(directory):
    proc = subprocess.Popen([sys.executable, "-m", "cosim.cli", "view", str(directory), "--web"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.startswith("web viewer: "):
            return proc, line.split(": ", 1)[1].strip()
    proc.kill()
    raise AssertionError(f"cosim view printed no URL: {proc.stderr.read()}")


def _group_pixels(png: bytes) -> int:
    """Pixels within 30 of the first group's colour in every channel."""
    from io import BytesIO

    import matplotlib.image as mpimg

    img = (mpimg.imread(BytesIO(png), format="png")[..., :3] * 255).astype(int)
    return int(np.count_nonzero(np.all(np.abs(img - PALETTE[0].astype(int)) <= 30, axis=-1)))


def test_the_web_viewer_loads_the_recording_in_headless_chromium(viewed_run, tmp_path):
    from playwright.sync_api import sync_playwright

    proc, url = _serve(viewed_run.directory)
    assert url.startswith("http://127.0.0.1:")
    blocked, errors, console_errors = [], [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM,
                                         args=["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
            page = browser.new_page(viewport={"width": 800, "height": 500})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)

            def offline(route):  # the test machine is offline: the viewer must work without the internet
                blocked.append(route.request.url)
                route.abort()

            page.route(lambda u: not u.startswith(LOCAL), offline)  # only what leaves the machine is intercepted
            page.goto(url)
            deadline, seen = time.monotonic() + 90, 0
            while seen < 50 and time.monotonic() < deadline:
                page.wait_for_timeout(1000)  # (not time.sleep: Playwright handles the page's events only in its own calls)
                shot = page.screenshot(path=str(tmp_path / "viewer.png"))
                seen = _group_pixels(shot)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    port = int(url.split(":")[2].split("/")[0])
    with socket.socket() as s:  # `cosim view` stopped Rerun's server with itself
        assert s.connect_ex(("127.0.0.1", port)) != 0
    assert (tmp_path / "viewer.png").stat().st_size > 10_000
    assert seen >= 50, f"the robots (group colour {PALETTE[0].tolist()}) are not drawn: {seen} pixels; see {tmp_path}"
    assert errors == []
    assert all(any(host in u for host in EXTERNAL) for u in blocked), blocked
    noise = [e for e in console_errors if e.startswith("Failed to load resource") or e.startswith("TypeError: Failed to fetch")]
    assert len(noise) <= 2 * len(blocked)
    assert [e for e in console_errors if e not in noise] == []
