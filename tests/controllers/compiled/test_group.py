"""Compiled group steps (controllers.compiled.group): the compiled twin of ChainFollowerGroup gives its
trace bit for bit, the inbox reaches the step as arrays, and a step outside the compiled subset is
refused when the scenario is built, naming the line."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from controllers.compiled import ProgramError
from tests.conftest import ROOT, base_scenario

BAD = "tests.controllers.compiled.bad_programs"


def follow(cls: str, duration: float):
    scenario = cosim.load(ROOT / "configs" / "kilombo_follow_group.yaml",
                          {"duration": duration, "groups.1.controller.class": cls})
    sim = cosim.build(scenario)
    sim.run()
    c = sim.counters
    return sim.recorder.digest(), (c.sent, c.delivered, c.physics_steps)


def test_the_compiled_chain_follower_gives_the_python_group_controllers_trace():
    python = follow("controllers.case_studies.kilobot_group:ChainFollowerGroup", 30.0)
    compiled = follow("controllers.case_studies.kilobot_group_compiled:ChainFollowerCompiled", 30.0)
    assert compiled == python and python[1][1] > 0  # messages were heard, and the same ones


def two_groups(sender: str, receiver: str):
    data = base_scenario(duration=0.35)
    data["groups"] = [
        {"name": "a", "count": 1, "layout": {"type": "list", "points": [[0, 0, 1]]},
         "controller": {"class": f"{BAD}:{sender}"}},
        {"name": "b", "count": 2, "layout": {"type": "list", "points": [[5, 0, 1], [0, 5, 1]]},
         "controller": {"class": f"{BAD}:{receiver}"}},
    ]
    return cosim.build(cosim.from_dict(data, source="groups.yaml"))


def test_the_step_reads_the_inbox_as_arrays_with_each_payloads_true_length(monkeypatch):
    monkeypatch.setenv("COSIM_ENGINE", "event")  # the fused engine's inbox: tests/cosim/fused_engine/test_groups.py
    sim = two_groups("Chirper", "Listener")
    sim.run()
    state = sim.group_controllers[1].state
    assert state["heard"].tolist() == [3, 3]  # the sends at 0, 0.1 and 0.2 s, each read at the next step
    assert state["length"].tolist() == [3, 3]  # three bytes sent, two read: the rest is cut, not refused
    assert (state["first"].tolist(), state["second"].tolist()) == ([7, 7], [8, 8])


def test_unicasts_velocities_and_records_made_in_the_step_take_effect():
    sim = two_groups("Listener", "GroupPinger")  # the listener is node 0, the pingers nodes 1 and 2
    sim.run()
    assert sim.group_controllers[0].state["heard"].tolist() == [6]  # both pingers' sends at 0, 0.1 and 0.2 s
    assert sim.group_controllers[0].state["length"].tolist() == [3]
    rec = sim.recorder.tables()["records"]
    nodes, values = np.asarray(rec["node"]), np.asarray(rec["value"])
    assert sorted(zip(nodes.tolist(), values.tolist())) == [(n, float(c)) for n in (1, 2) for c in range(1, 5)]
    vel = sim.world.velocities()
    assert vel[1, 0] == pytest.approx(0.1) and vel[2, 0] == pytest.approx(0.2)


@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
def test_a_step_outside_the_subset_is_refused_with_its_line():
    path = ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py"
    lines = path.read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if "class GroupUsesADict" in text)
    line = next(n for n, text in enumerate(lines, 1) if "heard = {" in text and n > start)
    with pytest.raises(ProgramError) as err:
        two_groups("Chirper", "GroupUsesADict")
    msg = str(err.value)
    assert f"bad_programs.py:{line}:" in msg and "GroupUsesADict.tick" in msg and "Traceback" not in msg


def test_a_misspelt_record_name_in_a_step_is_refused_with_its_line():
    with pytest.raises(ProgramError, match=r"bad_programs.py:\d+: GroupRecordTypo.tick records 'gaps' in .*\(the class's "
                                           r"`records` does not list it: 'gap'; did you mean 'gap'\?\)"):
        two_groups("Chirper", "GroupRecordTypo")


def test_an_unknown_state_field_in_a_step_is_refused_naming_it():
    with pytest.raises(ProgramError, match=r"GroupUnknownField\.tick uses state field 'm'"):
        two_groups("Chirper", "GroupUnknownField")


def test_a_payload_size_that_is_not_a_byte_count_is_refused_naming_it():
    from controllers.compiled.group import CompiledGroup

    with pytest.raises(ValueError, match=r"Odd\.payload_bytes: expected a whole number of bytes within 0\.\.65535, got -2"):
        type("Odd", (CompiledGroup,), {"payload_bytes": -2, "tick": lambda s, k: None})


def test_a_step_that_starts_a_timer_is_refused_with_its_line():
    """A group's timers are Python's: the context's timer buffers are read-only, and the build says so."""
    path = ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if 'core.every(k, "nap_group"' in text)
    with pytest.raises(ProgramError) as err:
        two_groups("Chirper", "GroupStartsATimer")
    msg = str(err.value)
    assert f"bad_programs.py:{line}: GroupStartsATimer.tick starts a timer" in msg
    assert "a group's timers are Python's" in msg


def test_print_in_a_compiled_group_is_refused_with_its_line():
    with pytest.raises(ProgramError) as err:
        two_groups("Chirper", "GroupPrints")
    lines = (ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py").read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if "class GroupPrints(" in text)
    line = next(n for n, text in enumerate(lines, 1) if "print(k.now)" in text and n > start)
    assert f"bad_programs.py:{line}: GroupPrints.tick is outside the compiled subset: print()" in str(err.value)
