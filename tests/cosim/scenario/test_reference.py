"""The scenario reference lists every key a scenario takes, with its default, unit and reader."""

import dataclasses

from cosim.scenario.reference import attribute_docs, reference_markdown
from cosim.scenario.robot_spec import RobotModelSpec
from cosim.scenario.specs import Scenario
from cosim.scenario.world_spec import PhysicsSpec


def _row(text: str, section: str, key: str) -> str:
    part = text.split(f"## `{section}`\n", 1)[1].split("\n## ", 1)[0]
    return next(line for line in part.splitlines() if line.startswith(f"| `{key}` |"))


def test_every_top_level_key_and_its_readers_are_listed():
    text = reference_markdown()
    for f in dataclasses.fields(Scenario):
        if f.init and f.name != "source":
            assert f"| `{f.name.removesuffix('_ns')}` |" in text, f.name
    assert _row(text, "groups[].robot", "max_speed") == ("| `max_speed` | number | `5.0` | m/s | point robots | point only: the "
                                                        "fastest it may be commanded to go. |")
    assert "| pybullet |" in _row(text, "physics", "solver_iterations")
    assert "| kinematic |" in _row(text, "physics", "max_accel")
    assert "| duration | `0.01 s` |" in _row(text, "top level", "quantum")
    assert "| fast engine |" in _row(text, "network.radio.fast", "loss_probability")
    assert "## `groups[].layout (type: random_disc)`" in text and "## `groups[].sensors.range`" in text
    assert "## `network.radio.pathloss (model: log_distance)`" in text
    assert "## `network.interfaces[].radio`\n\nThe same keys as [`network.radio`](#networkradio)." in text  # once


def test_field_docstrings_are_read_from_the_source():
    docs = attribute_docs(RobotModelSpec)
    assert docs["control_hz"].startswith("quadrotor only: the cascaded PID's rate (Hz)")
    assert attribute_docs(PhysicsSpec)["solver_iterations"] == "pybullet only: the contact solver's iterations per step."


def test_every_key_of_every_section_has_a_description():
    """A key added without the docstring under its field shows an empty cell in the reference: listed here."""
    empty = []
    for line in reference_markdown().splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif line.startswith("| `") and line.rstrip().endswith("|  |"):
            empty.append(f"{section} {line.split('|')[1].strip()}")
    assert empty == []
