"""The README's Python example runs as written (with its run directory moved to a temporary one), and
so does the group controller example of docs/controllers.md."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_the_readme_python_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"From Python:\n\n```python\n(.*?)```", text, re.S).group(1)
    assert "cosim.build(scenario)" in block and "sim.run()" in block
    block = block.replace('"runs/demo7"', repr(str(tmp_path / "demo7")))
    block = block.replace('"duration": 10', '"duration": 2')
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)
    assert scope["result"].status == "ok"
    assert scope["sim"].counters.delivered == scope["result"].metrics["messages_delivered"]
    assert scope["out"].trace("positions").num_rows == 200 * 3


def test_the_readme_group_controller_example_runs(monkeypatch):
    import sys
    import types

    import numpy as np

    import cosim
    from tests.conftest import base_scenario

    text = (ROOT / "docs" / "controllers.md").read_text()
    block = re.search(r"### Group controllers.*?```python\n(.*?)```", text, re.S).group(1)
    module = types.ModuleType("readme_gatherers")
    exec(compile(block, "docs/controllers.md", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "readme_gatherers", module)
    data = base_scenario(duration=30.0)
    data["groups"][0]["controller"] = {"class": "readme_gatherers:Gatherers"}
    sim = cosim.build(cosim.from_dict(data, "readme.yaml"))
    sim.run()
    pos = sim.world.positions()[:, :2]
    assert np.linalg.norm(pos - pos.mean(axis=0), axis=1).max() < 3.0  # gathered (they started up to 20 m apart)
    assert sim.counters.sent > 0 and sim.group_controllers[0].heard.sum() > 0
