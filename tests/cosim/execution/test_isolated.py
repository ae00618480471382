"""What the parent records when its child process dies before recording the run itself."""

from __future__ import annotations

import json

import pytest

import cosim
from cosim.execution import isolated
from cosim.output.rundir import prepare
from tests.conftest import base_scenario

START_UP_DEATH = "Fatal Python error: init_import_site: Failed to import the site module\n"


@pytest.mark.parametrize("interrupted, status", [(True, "interrupted"), (False, "failed")])
def test_a_child_dead_at_start_up_while_the_user_interrupted_was_interrupted(tmp_path, interrupted, status):
    """A signal during the child interpreter's own start-up ends it with status 1, not as killed by it."""
    scenario = cosim.from_dict(base_scenario(), source="test")
    run = tmp_path / "run"
    prepare(run, scenario, ["cosim", "run"])
    (run / "child_stderr.txt").write_text(START_UP_DEATH)
    result = isolated._read_back(run, scenario, 1, run / "child_stderr.txt", 0, None, interrupted)
    assert result.status == status
    assert json.loads((run / "status.json").read_text())["status"] == status
    if not interrupted:
        assert "exit status 1" in result.error and "init_import_site" in result.error
