"""The README's Python example runs as written (with its run directory moved to a temporary one)."""

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
