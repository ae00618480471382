"""Compiled kilolib programs: the twins of the Python examples give the same trace robot by robot on
the event engine, and a program outside the compiled subset is refused when the scenario is built,
naming the file, the line and the construct."""

from __future__ import annotations

import pytest
import yaml

import cosim
from controllers.compiled import ProgramError
from tests.conftest import ROOT


def run(config: str, module: str, duration: float, monkeypatch, engine: str = "event"):
    monkeypatch.setenv("COSIM_ENGINE", engine)
    data = yaml.safe_load((ROOT / "configs" / config).read_text())
    data["duration"] = duration
    for g in data["groups"]:
        g["controller"]["class"] = g["controller"]["class"].replace("controllers.case_studies.kilolib_programs", module)
    sim = cosim.build(cosim.from_dict(data, source=config))
    sim.run()
    c = sim.counters
    return sim.engine_path, sim.recorder.digest(), (c.sent, c.delivered, c.physics_steps, c.events)


@pytest.mark.parametrize("config, duration", [("kilolib_orbit.yaml", 20.0), ("kilolib_follow.yaml", 20.0),
                                              ("kilolib_edge.yaml", 20.0)])
def test_compiled_twins_give_the_python_programs_trace(config, duration, monkeypatch):
    python = run(config, "controllers.case_studies.kilolib_programs", duration, monkeypatch)
    compiled = run(config, "controllers.case_studies.kilolib_programs_compiled", duration, monkeypatch)
    assert python[0] == compiled[0] == "event"
    assert compiled[1] == python[1]
    assert compiled[2] == python[2] and python[2][1] > 0  # messages were heard, and the same ones


def build_with(cls: str, module: str = "tests.controllers.compiled.bad_programs"):
    data = yaml.safe_load((ROOT / "configs" / "kilolib_orbit.yaml").read_text())
    data["groups"][1]["controller"]["class"] = f"{module}:{cls}"
    return cosim.build(cosim.from_dict(data, source="orbit.yaml"))


@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
def test_a_construct_outside_the_subset_is_refused_with_its_line():
    path = ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "heard = {" in text)
    with pytest.raises(ProgramError) as err:
        build_with("UsesADict")
    msg = str(err.value)
    assert "bad_programs.py:" in msg and "UsesADict.loop" in msg and "docs/kilolib.md" in msg
    assert f"bad_programs.py:{line}:" in msg and 'heard = {1: (2, 3), "two": 4.0}' in msg
    assert "Traceback" not in msg and "During:" not in msg


def test_an_unknown_state_field_is_refused_naming_it():
    with pytest.raises(ProgramError, match=r"UnknownField\.loop.*'m'|UnknownField\.loop.*\bm\b"):
        build_with("UnknownField")


def line_of(text: str, after: str = "") -> int:
    lines = (ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py").read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if after in line)
    return next(n for n, line in enumerate(lines, 1) if text in line and n > start)


def test_a_record_name_not_declared_is_refused_with_its_line():
    line = line_of('record(k, "speed"', "class UndeclaredRecord")
    with pytest.raises(ProgramError) as err:
        build_with("UndeclaredRecord")
    assert (f"bad_programs.py:{line}: UndeclaredRecord.loop records 'speed' in `record(k, \"speed\", 1.0)` "
            "(the class's `records` does not list it: none; add it there)") in str(err.value)


def test_a_misspelt_record_name_is_refused_naming_the_listed_one():
    """Not "outside the compiled subset": the name is wrong, and the listed one near it is named (even
    when another class lists the misspelt name, as records are checked per class)."""
    with pytest.raises(ProgramError) as err:
        build_with("RecordTypo")
    msg = str(err.value)
    line = line_of('record(k, "sped"')
    assert f"bad_programs.py:{line}: RecordTypo.loop records 'sped'" in msg
    assert "(the class's `records` does not list it: 'speed'; did you mean 'speed'?)" in msg
    assert "outside the compiled subset" not in msg


def test_self_in_a_compiled_callback_is_refused_with_its_line():
    with pytest.raises(ProgramError) as err:
        build_with("UsesSelf")
    msg = str(err.value)
    assert f"bad_programs.py:{line_of('self.n = 3')}: UsesSelf.loop uses `self`, which it does not have" in msg
    assert "(a compiled callback's state is its first argument, s: write s.field)" in msg and "NameError" not in msg


def dice(monkeypatch, cls: str, engine: str):
    monkeypatch.setenv("COSIM_ENGINE", engine)
    data = yaml.safe_load((ROOT / "configs" / "kilolib_orbit.yaml").read_text())
    data["duration"] = 5.0
    for g in data["groups"]:
        g["controller"]["class"] = f"tests.controllers.compiled.probes:{cls}"
    sim = cosim.build(cosim.from_dict(data, source="dice.yaml"))
    sim.run()
    records = sim.recorder.tables()["records"]
    return sim.engine_path, sim.recorder.digest(), [v for n, v in zip(records["name"], records["value"]) if n == "draw"]


def test_rand_soft_draws_what_the_python_program_draws_on_both_engines(monkeypatch):
    python = dice(monkeypatch, "DicePy", "event")
    compiled = dice(monkeypatch, "Dice", "event")
    fused = dice(monkeypatch, "Dice", "auto")
    assert (python[0], compiled[0], fused[0]) == ("event", "event", "fused")
    assert len(python[2]) == 2 * 160 and len(set(python[2])) > 100  # two robots, 32 loops a second, bytes
    assert compiled[2] == python[2] == fused[2]
    assert compiled[1] == python[1] == fused[1]


def test_a_program_giving_a_controllers_command_is_refused_with_its_line():
    path = ROOT / "tests" / "controllers" / "compiled" / "probes.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "core.drive(k, 0.1, 0.0)" in text)
    with pytest.raises(ProgramError) as err:
        build_with("Driver", module="tests.controllers.compiled.probes")
    msg = str(err.value)
    assert f"probes.py:{line}: Driver.loop gives a compiled controller's command in `core.drive(k, 0.1, 0.0)`" in msg
    assert "moves with set_motors and sends from message_tx" in msg


def test_print_in_a_kilolib_program_is_refused_with_its_line():
    with pytest.raises(ProgramError) as err:
        build_with("ProgramPrints")
    path = ROOT / "tests" / "controllers" / "compiled" / "bad_programs.py"
    lines = path.read_text().splitlines()
    start = next(n for n, text in enumerate(lines) if "class ProgramPrints(" in text)
    line = next(n for n, text in enumerate(lines, 1) if "print(1)" in text and n > start)
    assert f"bad_programs.py:{line}: ProgramPrints.loop is outside the compiled subset: print() in `print(1)`" in str(err.value)
