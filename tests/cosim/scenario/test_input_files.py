"""Every file a scenario or sweep names is checked before it is read: no FIFO that blocks forever, no
device that never ends, nothing too large, and text that is not UTF-8 named with its file."""

from __future__ import annotations

import os

import pytest
import yaml

import cosim
from cosim.errors import ScenarioError
from cosim.scenario import input_files
from cosim.sweep.spec import load_sweep
from tests.conftest import base_scenario


def _special(tmp_path, kind: str):
    """A path of `kind`, and the words the refusal uses for it."""
    if kind == "fifo":
        path = tmp_path / "pipe.yaml"
        os.mkfifo(path)
        return path, "is a FIFO, not a regular file"
    if kind == "device":
        return "/dev/zero", "/dev/zero is a character device, not a regular file"
    if kind == "folder":
        (tmp_path / "dir.yaml").mkdir()
        return tmp_path / "dir.yaml", "is a folder, not a regular file"
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as f:  # sparse: no disk used
        f.truncate(input_files.MAX_TEXT_BYTES + 1)
    return path, f"more than the {input_files.MAX_TEXT_BYTES:,} such a file may have"


KINDS = ["fifo", "device", "folder", "too large"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_scenario_file_that_is_not_a_plain_file_is_refused_before_reading(tmp_path, kind):
    path, words = _special(tmp_path, kind)
    with pytest.raises(ScenarioError, match=f"cannot read the file: .*{words}"):
        cosim.load(path)


@pytest.mark.parametrize("kind", KINDS)
def test_a_world_file_that_is_not_a_plain_file_is_refused_naming_the_key(tmp_path, kind):
    path, words = _special(tmp_path, kind)
    with pytest.raises(ScenarioError, match=f"world.file: cannot read the world file: .*{words}"):
        cosim.from_dict(base_scenario(world={"file": str(path)}), source=str(tmp_path / "s.yaml"))


@pytest.mark.parametrize("kind", KINDS)
def test_a_sweep_file_that_is_not_a_plain_file_is_refused(tmp_path, kind):
    path, words = _special(tmp_path, kind)
    with pytest.raises(ScenarioError, match=f"cannot read the file: .*{words}"):
        load_sweep(path)


def test_model_files_are_checked_when_the_scenario_is_read(tmp_path):
    os.mkfifo(tmp_path / "ramp.obj")
    data = base_scenario(world={"arena_lower": [-5, -5, 0], "arena_upper": [5, 5, 5], "terrain": {"mesh": "ramp.obj"}})
    with pytest.raises(ScenarioError, match=r"world.terrain.mesh: .*ramp.obj is a FIFO, not a regular file"):
        cosim.from_dict(data, source=str(tmp_path / "s.yaml"))
    data = base_scenario(world={"arena_lower": [-5, -5, 0], "arena_upper": [5, 5, 5],
                                "obstacles": [{"type": "mesh", "file": "/dev/zero"}]})
    with pytest.raises(ScenarioError, match=r"world.obstacles\[0\].file: /dev/zero is a character device"):
        cosim.from_dict(data, source=str(tmp_path / "s.yaml"))


def test_text_that_is_not_utf8_names_the_file_and_where(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(yaml.safe_dump(base_scenario()).encode() + b"# caf\xe9\n")
    with pytest.raises(ScenarioError, match=r"latin1.yaml: cannot read the file: .*latin1.yaml is not UTF-8 text "
                                            r"\(byte [\d,]+, line \d+: b'\\xe9'\)"):
        cosim.load(path)


@pytest.mark.parametrize("depth, words", [(3000, "nests too deeply"), (150, "nests 151 levels deep, more than 100")])
def test_nesting_deeper_than_any_scenario_is_refused_with_a_message(tmp_path, depth, words):
    path = tmp_path / "deep.yaml"
    path.write_text("name: x\nworld: " + "[" * depth + "]" * depth + "\n")
    with pytest.raises(ScenarioError, match=f"not valid YAML: the document {words}"):
        cosim.load(path)


def test_a_position_trace_that_cannot_finish_is_refused_before_the_run():
    with pytest.raises(ScenarioError, match=r"output.trace.positions_every: every 1 ns over 2 s is 2,000,000,001 "
                                            r"samples, more than 100,000,000"):
        cosim.from_dict(base_scenario(output={"trace": {"positions_every": "1 ns"}}), source="s.yaml")
    data = base_scenario(duration=86_400, output={"trace": {"positions_every": "1 ms"}})
    data["groups"][0]["count"] = 200
    with pytest.raises(ScenarioError, match=r"positions_every: 86,400,001 samples of 200 robots are 17,280,000,200 rows"):
        cosim.from_dict(data, source="s.yaml")


def test_a_sweep_too_large_to_run_is_refused_before_it_is_expanded(tmp_path):
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base_scenario()))
    for sweep, words in (({"grid": {f"a{k}": list(range(10)) for k in range(12)}}, "10 x 10 x 10"),
                         ({"grid": {"groups.0.count": [4]}, "replications": 10**9}, "1 points x 1,000,000,000 replications")):
        (tmp_path / "sweep.yaml").write_text(yaml.safe_dump({"base": "base.yaml", **sweep}))
        with pytest.raises(ScenarioError, match=f"grid: {words}.* more than 100,000 in one sweep"):
            load_sweep(tmp_path / "sweep.yaml")
