"""Compiled general controllers (controllers.compiled.controller): the compiled twin of ChainFollower
gives its trace bit for bit; unicasts, broadcasts, velocity commands, records and timers made in
compiled code take effect; and code outside the compiled subset is refused when the scenario is
built, naming the line."""

from __future__ import annotations

import numpy as np
import pytest

import cosim
from controllers.compiled import CompiledController, ProgramError
from cosim.errors import SimulationError
from tests.conftest import ROOT, base_scenario

BAD = "tests.controllers.compiled.bad_programs"
PROBES = "tests.controllers.compiled.probes"


def follow(cls: str, noise: float):
    scenario = cosim.load(ROOT / "configs" / "kilombo_follow.yaml", {
        "duration": 20.0, "groups.1.count": 9, "groups.1.controller.class": cls, "output.trace.network": True,
        "groups.1.controller.params": {"follow_distance": 0.04, "distance_noise": noise}})
    sim = cosim.build(scenario)
    sim.run()
    c = sim.counters
    return sim.recorder.digest(), (c.sent, c.delivered, c.physics_steps), sim.recorder.tables()["records"]


@pytest.mark.parametrize("noise", [0.0, 0.004])
def test_the_compiled_chain_follower_gives_the_python_controllers_trace(noise):
    python = follow("controllers.case_studies.kilobot:ChainFollower", noise)
    compiled = follow("controllers.case_studies.kilobot_compiled:ChainFollowerRobot", noise)
    assert compiled[:2] == python[:2]
    assert python[1][1] > 200  # messages were heard, and the same ones
    gaps = np.asarray(python[2]["value"])
    assert len(gaps) == 9 * 4 and np.isfinite(gaps).sum() > 0  # every follower's 5 s report: 5, 10, 15, 20 s


def ticked(cls: str):
    scenario = cosim.load(ROOT / "configs" / "kilombo_follow_group.yaml", {
        "duration": 20.0, "groups.1.count": 12, "groups.1.controller.class": cls, "groups.1.controller.phase": 0,
        "output.trace.network": True})
    sim = cosim.build(scenario)
    sim.run()
    c = sim.counters
    return sim.recorder.digest(), (c.sent, c.delivered, c.physics_steps), sim.recorder.tables()["records"]


def test_the_compiled_ticked_follower_gives_the_python_controllers_trace():
    """Steps at the control period, range and bearing measured at the step, a timer with a phase."""
    python = ticked("controllers.case_studies.kilobot:TickedChainFollower")
    compiled = ticked("controllers.case_studies.kilobot_compiled:TickedChainFollowerRobot")
    assert compiled[:2] == python[:2]
    assert python[1][1] > 200
    assert np.asarray(compiled[2]["t_ns"]).min() == 5_000_000_000  # the report's phase: from 5 s on


def pings():
    data = base_scenario(duration=0.35)
    data["groups"] = [
        {"name": "sink", "count": 1, "layout": {"type": "list", "points": [[0, 0, 1]]},
         "controller": {"class": f"{PROBES}:Counter"}},
        {"name": "pingers", "count": 2, "layout": {"type": "list", "points": [[3, 0, 1], [0, 4, 1]]},
         "controller": {"class": f"{PROBES}:Pinger", "phase": 0}},
    ]
    sim = cosim.build(cosim.from_dict(data, source="pings.yaml"))
    sim.run()
    return sim


def test_unicasts_velocities_and_records_made_in_compiled_code_take_effect():
    sim = pings()
    assert sim.population.controllers[0].state["heard"][0] == 8  # two pingers' steps at 0, 0.1, 0.2 and 0.3 s
    rec = sim.recorder.tables()["records"]
    by = {name: np.asarray(rec["value"])[np.asarray(rec["name"]) == name] for name in ("seq", "sender", "range", "length")}
    assert sorted(by["seq"].tolist()) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert sorted(set(by["sender"].tolist())) == [1, 2]
    assert set(by["length"].tolist()) == {3.0}  # three bytes sent, two read by the sink: cut, not refused
    assert by["range"].min() >= 3.0 and by["range"].max() < 4.5  # measured when each message arrived
    vel = sim.world.velocities()
    assert vel[1, 0] == pytest.approx(0.4) and vel[2, 0] == pytest.approx(0.4)  # the fourth step's command
    assert sim.world.positions()[1, 0] > 3.0


@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
@pytest.mark.parametrize("cls, marker, expected", [
    ("ControllerUsesADict", "heard = {", "ControllerUsesADict.step is outside the compiled subset"),
    ("ControllerUnknownField", "s.count = 1", "uses state field 'count', which `fields` does not declare"),
    ("ControllerUndeclaredRecord", "altitude_ok", "records 'altitude_ok' in `core.record(k, \"altitude_ok\", 1.0)` "
                                                    "(the class's `records` does not list it"),
    ("ControllerUnlistedTimer", '"nap"', "list 'nap' in the controller's `timers`"),
])
def test_a_controller_outside_the_subset_is_refused_when_built(cls, marker, expected):
    path = ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py"
    lines = path.read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if f"class {cls}(" in text)
    line = next(n for n, text in enumerate(lines, 1) if marker in text and n > start)
    data = base_scenario(duration=0.2)
    data["groups"][0]["controller"] = {"class": f"{BAD}:{cls}"}
    with pytest.raises(ProgramError) as err:
        cosim.build(cosim.from_dict(data, source="bad.yaml"))
    msg = str(err.value)
    assert expected in msg and f"bad_programs.py:{line}:" in msg and "Traceback" not in msg


def test_a_timer_the_class_does_not_define_or_a_taken_name_is_refused():
    with pytest.raises(TypeError, match=r"timers lists \['blink'\], which the class does not define"):
        type("NoBlink", (CompiledController,), {"timers": ("blink",)})
    with pytest.raises(TypeError, match="'record' is a name the controller already uses"):
        type("Shadow", (CompiledController,), {"timers": ("record",), "record": lambda s, k: None})


def clocked(cls: str, engine: str, monkeypatch):
    monkeypatch.setenv("COSIM_ENGINE", engine)
    data = base_scenario(duration=1.0)
    data["groups"][0]["controller"] = {"class": f"{PROBES}:{cls}", "phase": 0.05}
    del data["groups"][0]["sensors"]
    sim = cosim.build(cosim.from_dict(data, source="clock.yaml"))
    sim.run()
    return sim


@pytest.mark.parametrize("engine", ["event", "auto"])
def test_a_controller_setting_kilolib_motors_is_refused_on_either_engine(monkeypatch, engine):
    with pytest.raises(SimulationError, match="ValueError: set_motors is a kilolib program's: a compiled controller or group"):
        clocked("MotorController", engine, monkeypatch)


def test_kilolib_functions_run_in_a_controller_over_the_one_context(monkeypatch):
    event, fused = clocked("KiloClock", "event", monkeypatch), clocked("KiloClock", "auto", monkeypatch)
    assert (event.engine_path, fused.engine_path) == ("event", "fused")
    assert event.recorder.digest() == fused.recorder.digest()
    rec = event.recorder.tables()["records"]
    names, values = np.asarray(rec["name"]), np.asarray(rec["value"])
    t = np.asarray(rec["t_ns"])[names == "ticks"] / 1e9
    assert len(t) == 10 * len(event.population.controllers)  # every 0.1 s from 0.05 s, each robot
    assert values[names == "ticks"].tolist() == np.floor(t * 32 + 1e-9).tolist()  # 32 kilolib ticks a second
    assert sorted(set(values[names == "uid"].tolist())) == list(range(len(event.population.controllers)))
    soft = values[names == "soft"]
    assert soft.min() >= 0 and soft.max() <= 255 and len(set(soft.tolist())) > 5


def test_records_a_failed_call_left_do_not_reach_the_next_run(monkeypatch):
    with pytest.raises(SimulationError, match="a failing step"):
        clocked("RecordsThenFails", "event", monkeypatch)
    names = set(np.asarray(clocked("KiloClock", "event", monkeypatch).recorder.tables()["records"]["name"]).tolist())
    assert names == {"ticks", "uid", "soft"}


def _print_line(cls: str, marker: str) -> int:
    lines = (ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py").read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if f"class {cls}(" in text)
    return next(n for n, text in enumerate(lines, 1) if marker in text and n > start)


def test_print_in_a_compiled_controller_is_refused_naming_file_line_and_callback():
    """It would compile and print with no robot and the wrong time (docs/kilolib.md refuses it)."""
    data = base_scenario(duration=0.2)
    data["groups"][0]["controller"] = {"class": f"{BAD}:ControllerPrints"}
    with pytest.raises(ProgramError) as err:
        cosim.build(cosim.from_dict(data, source="bad.yaml"))
    line = _print_line("ControllerPrints", 'print("step"')
    assert f'bad_programs.py:{line}: ControllerPrints.step is outside the compiled subset: print() in `print("step", s.n)`' \
        in str(err.value)
    assert "record() a metric instead" in str(err.value)
