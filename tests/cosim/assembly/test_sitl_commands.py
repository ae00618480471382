"""The firmware command lines of a `mavlink.sitl` scenario (`cosim sitl-commands`): one instance per
robot, each with its ports, system id and a --home where its robot stands."""

from __future__ import annotations

from pathlib import Path

import pytest

import cosim
from cosim.assembly.sitl_commands import firmware_commands
from cosim.cli import main
from cosim.mavlink.frames import GeoOrigin

ROOT = Path(__file__).resolve().parents[3]


def test_each_robot_gets_its_instance_ports_system_id_and_home():
    scenario = cosim.load(ROOT / "configs" / "sitl_swarm_ns3.yaml")
    commands = firmware_commands(scenario, "/opt/arducopter", "/opt/copter.parm")
    assert len(commands) == 5
    origin = GeoOrigin(*scenario.mavlink.origin)
    for k, argv in enumerate(commands):
        lat, lon, alt = origin.to_geodetic(25.0 + 25.0 * k, 0.0, 0.0)  # the layout: a line from x = 25 m, 25 m apart
        assert argv == ["/opt/arducopter", "--model=JSON:127.0.0.1", f"--home={lat:.7f},{lon:.7f},{alt:.2f},90",
                        "--defaults=/opt/copter.parm", f"-I{k}", f"--sim-port-out={9002 + 10 * k}", "--speedup=100",
                        "--start-time=1767225600", f"--serial0=udpclient:127.0.0.1:{14660 + 10 * k}", f"--sysid={k + 1}"]


def test_the_command_prints_one_line_per_firmware_and_refuses_a_scenario_without_any(capsys):
    assert main(["sitl-commands", str(ROOT / "configs" / "sitl_copter.yaml"), "--speedup", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["arducopter --model=JSON:127.0.0.1 --home=47.3977000,8.5456000,488.00,90 "
                   "--defaults=copter.parm,copter-X.parm -I0 --sim-port-out=9002 --speedup=8 --start-time=1767225600"]
    assert main(["sitl-commands", str(ROOT / "configs" / "demo.yaml")]) == 2
    assert "no mavlink.sitl entries" in capsys.readouterr().err


def test_the_firmwares_utc_is_fixed_so_that_its_gps_time_repeats(capsys):
    """ArduPilot starts its GPS clock at the host's time unless told: each run's GPS time (and every
    message carrying it) would differ. The default is fixed; another is taken; a negative one refused."""
    config = str(ROOT / "configs" / "sitl_copter.yaml")
    assert main(["sitl-commands", config, "--start-time", "1800000000"]) == 0
    assert capsys.readouterr().out.split()[-1] == "--start-time=1800000000"
    assert main(["sitl-commands", config, "--start-time", "-5"]) == 2
    assert "--start-time is UNIX seconds, 0 or more, got -5" in capsys.readouterr().err


def test_random_layouts_are_drawn_as_the_run_draws_them(tmp_path):
    data = {"name": "r", "seed": 11, "duration": 1.0, "quantum": "10 ms", "physics": {"backend": "kinematic", "dt": "2.5 ms"},
            "network": {"backend": "none"}, "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 10]},
            "mavlink": {"sitl": [{"group": "c", "port": 9002}]},
            "groups": [{"name": "c", "count": 2, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
                        "layout": {"type": "random_box", "lower": [-10, -10, 0], "upper": [10, 10, 0]},
                        "controller": {"class": "controllers:Controller"}}]}
    homes = [a for argv in firmware_commands(cosim.from_dict(data)) for a in argv if a.startswith("--home=")]
    from cosim.assembly.simulation import build

    sim = build(cosim.from_dict(data))
    try:
        origin = GeoOrigin(47.3977, 8.5456, 488.0)
        for node, home in enumerate(homes):
            lat, lon, alt = origin.to_geodetic(*sim.world.specs[node].position)
            assert home.startswith(f"--home={lat:.7f},{lon:.7f},{alt:.2f}")
    finally:
        for ext in sim.extensions:
            ext.finish(None)
    with pytest.raises(ValueError, match=r"no mavlink\.sitl"):
        firmware_commands(cosim.load(ROOT / "configs" / "demo.yaml"))


def test_px4_instances_are_started_by_model_and_instance():
    scenario = cosim.load(ROOT / "configs" / "sitl_px4.yaml")
    assert firmware_commands(scenario, px4_binary="/opt/px4") == [["env", "PX4_SIM_MODEL=none_iris", "/opt/px4", "-i", "0", "-d"]]


def test_defaults_that_mix_for_a_plus_frame_are_refused_naming_the_parameter(tmp_path, capsys):
    """ArduPilot's stock copter.parm sets FRAME_TYPE 0 (plus); the scenario's quadrotors are quad X."""
    plus = tmp_path / "copter.parm"
    plus.write_text("FRAME_CLASS     1\nFRAME_TYPE\t0\nMOT_THST_HOVER  0.39\n")
    x = tmp_path / "copter-X.parm"
    x.write_text("FRAME_TYPE  1\n")
    scenario = cosim.load(ROOT / "configs" / "sitl_copter.yaml")
    with pytest.raises(ValueError, match=r"sets FRAME_TYPE 0 \(plus\), but the scenario's quadrotors are quad X"):
        firmware_commands(scenario, defaults=str(plus))
    argv = firmware_commands(scenario, defaults=f"{plus},{x}")[0]
    assert f"--defaults={plus},{x}" in argv
    assert main(["sitl-commands", str(ROOT / "configs" / "sitl_copter.yaml"), "--defaults", str(plus)]) == 2
    err = capsys.readouterr().err
    assert "copter.parm,copter-X.parm" in err and "FRAME_TYPE 1" in err
    assert firmware_commands(cosim.load(ROOT / "configs" / "sitl_px4.yaml"), defaults=str(plus))  # PX4 reads no ArduPilot file
