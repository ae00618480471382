"""Malformed scenarios: each gives one message naming the file, the key path and what was expected."""

import pytest
import yaml

import cosim
from cosim.errors import ScenarioError
from tests.conftest import base_scenario


def with_(path: str, value):
    data = base_scenario()
    node = data
    parts = path.split(".")
    for p in parts[:-1]:
        node = node[int(p)] if p.isdigit() else node[p]
    last = parts[-1]
    if value is DELETE:
        del node[last]
    elif last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value
    return data


DELETE = object()

CASES = [
    ("quadrotor mass", with_("groups.0.robot", {"model": "quadrotor", "mass": 1.0}),
     "test.yaml: groups[0].robot.mass: does nothing for a quadrotor robot (only for point, diff_drive, omni); a "
     "quadrotor's mass and dynamics come from its airframe preset"),
    ("diff_drive max_speed", with_("groups.0.robot", {"model": "diff_drive", "max_speed": 1.0}),
     "test.yaml: groups[0].robot.max_speed: does nothing for a diff_drive robot (only for point); its speed and "
     "acceleration limits are drive.max_wheel_speed and drive.max_accel"),
    ("point drive", with_("groups.0.robot", {"model": "point", "drive": {"max_accel": 1.0}}),
     "test.yaml: groups[0].robot.drive: does nothing for a point robot (only for diff_drive, urdf)"),
    ("omni airframe", with_("groups.0.robot", {"model": "omni", "airframe": "quad_1500g"}),
     "test.yaml: groups[0].robot.airframe: does nothing for an omni robot (only for quadrotor)"),
    ("kinematic option on pybullet", with_("physics", {"backend": "pybullet", "dt": "10 ms", "max_accel": 2.0}),
     "test.yaml: physics.max_accel: the kinematic world's acceleration limit does nothing in pybullet"),
    ("collisions off on pybullet", with_("physics", {"backend": "pybullet", "dt": "10 ms", "collisions": False}),
     "test.yaml: physics.collisions: pybullet bodies always collide; collisions: false needs physics.backend: kinematic"),
    ("pybullet drag on kinematic", with_("physics", {"backend": "kinematic", "dt": "10 ms", "drag": 3.0}),
     "test.yaml: physics.drag: point robots' drag toward their commanded velocity is pybullet's"),
    ("pybullet solver on kinematic", with_("physics", {"backend": "kinematic", "dt": "10 ms", "solver_iterations": 5}),
     "test.yaml: physics.solver_iterations: the contact solver's iterations are pybullet's"),
    ("unknown top-level key", with_("durration", 5), "test.yaml: durration: unknown key; expected one of:"),
    ("a control loop at a gigahertz", with_("groups.0.robot", {"model": "quadrotor", "control_hz": 1e9}),
     "test.yaml: groups[0].robot.control_hz: control_hz must be at most 10,000 Hz"),
    ("ten million rays", with_("groups.0.sensors", {"range": {"count": 10_000_000}}),
     "test.yaml: groups[0].sensors.range: count must be between 1 and 10,000 rays, got 10,000,000"),
    ("a billion packets a second", with_("traffic", [{"rate": 1e9, "sessions": 2}]),
     "test.yaml: traffic[0]: rate must be at least 1e-06 (one packet in 11.6 days) and at most 1,000,000 packets per "
     "second per source"),
    ("a million and a half robots", with_("groups.0.count", 1_500_000),
     "test.yaml: groups[0].count: 1,500,000 robots"),  # at most 1,000,000 (or: need more memory than there is)
    ("a point robot faster than a bullet", with_("groups.0.robot", {"model": "point", "max_speed": 1e9}),
     "test.yaml: groups[0].robot.max_speed: max_speed must be within 0..1,000 m/s, got 1e+09"),
    ("a number past any quantity", with_("groups.0.robot", {"model": "point", "max_speed": 1e300}),
     "test.yaml: groups[0].robot.max_speed: expected a number within ±1e+15 (SI units: no quantity in a scenario is "
     "larger), got 1e+300"),
    ("a robot wider than the arena",
     with_("world", {"arena_lower": [-200, -200, 0], "arena_upper": [200, 200, 50]}) | {"groups": [
         base_scenario()["groups"][0] | {"robot": {"model": "point", "radius": 500.0}}]},
     "test.yaml: groups[0].robot.radius: a robot of radius 500 m does not fit in the arena, 400 m across at its narrowest"),
    ("an arena beyond 1,000 km", with_("world", {"arena_lower": [-1e12, -1e12, 0], "arena_upper": [1e12, 1e12, 10]}),
     "test.yaml: world: the arena must lie within 1,000,000 m of the origin on every axis"),
    ("wind with nothing that flies", with_("world", {"wind": {"mean": [3, 0, 0]}}),
     "test.yaml: world.wind: wind pushes quadrotors only, and no group here flies one"),
    ("GPS at 1e12 Hz", with_("groups.0.sensors", {"gps": {"rate_hz": 1e12}}),
     "test.yaml: groups[0].sensors.gps: rate_hz must be within 0..10,000 Hz"),
    ("negative solver iterations", with_("physics", {"backend": "pybullet", "dt": "10 ms", "solver_iterations": -5}),
     "test.yaml: physics.solver_iterations: solver_iterations must be within 1..1,000 (the default is 10), got -5"),
    ("a billion solver iterations", with_("physics", {"backend": "pybullet", "dt": "10 ms", "solver_iterations": 10**9}),
     "test.yaml: physics.solver_iterations: solver_iterations must be within 1..1,000 (the default is 10), got 1,000,000,000"),
    ("a latency longer than the run", with_("network.radio.fast", {"latency": 1e6}),
     "test.yaml: network.radio.fast.latency: a latency of 1e+06 s is not shorter than the run (2 s)"),
    ("traffic that stops before it starts",
     with_("traffic", [{"rate": 1, "sessions": 2, "start": 1.5, "stop": 0.5}]) | {"network": base_scenario()["network"] | {
         "routing": {"protocol": "direct"}}},
     "test.yaml: traffic[0]: stop (0.5 s) must come after start (1.5 s): no session would send anything"),
    ("traffic that starts after the run", with_("traffic", [{"rate": 1, "sessions": 2, "start": 5.0}]) | {
        "network": base_scenario()["network"] | {"routing": {"protocol": "direct"}}},
     "test.yaml: traffic[0].start: the traffic starts at 5 s, when the run (2 s) is over"),
    ("a data rate that rounds to nothing", with_("network.radio.data_rate_mbps", 1e-15),
     "test.yaml: network.radio: data_rate_mbps must be within 1e-06..1e+05 Mbit/s (1 bit/s to 100 Gbit/s), got 1e-15"),
    ("an old bit rate that rounds to nothing", with_("network.radio.bit_rate_bps", 1e-9),
     "test.yaml: network.radio.bit_rate_bps: must be within 1..1e11 bit/s (1 bit/s to 100 Gbit/s), got 1e-09; write "
     "data_rate_mbps (in Mbit/s) instead"),
    ("a header of 1e20 bytes", with_("network.radio.overhead_bytes", 10**20),
     "test.yaml: network.radio: overhead_bytes must be within 0..65535 bytes"),
    ("a list where a model name goes", with_("network.radio.pathloss", {"model": []}),
     "test.yaml: network.radio.pathloss.model: unknown model []; expected one of:"),
    ("a mapping where a standard goes", with_("network.radio.standard", {}),
     "test.yaml: network.radio.standard: expected one of generic, 802.11b, 802.11a, 802.11g, 802.11n, 802.15.4, got {}"),
    ("a layout beyond 1,000 km", with_("groups.0.layout", {"type": "random_disc", "radius": 1e12}),
     "test.yaml: groups[0].layout: radius must be within 1,000,000 m of the origin"),
    ("a robot of 1e12 kg", with_("groups.0.robot", {"model": "point", "mass": 1e12}),
     "test.yaml: groups[0].robot.mass: mass must be within 1e-06..100,000 kg, got 1e+12"),
    ("a wheel turning at 1e12 m/s", with_("groups.0.robot", {"model": "diff_drive", "drive": {"max_wheel_speed": 1e12}}),
     "test.yaml: groups[0].robot.drive: wheel_base must be at most 100 m, max_wheel_speed 1,000 m/s"),
    ("a unit disc of 1e12 m", with_("network.radio.pathloss", {"model": "unit_disk", "range_m": 1e12}),
     "test.yaml: network.radio.pathloss: range_m must be > 0 m and at most 1e7 m, got 1e+12"),
    ("1e30 random sessions", with_("traffic", [{"rate": 1, "sessions": 10**30}]),
     "test.yaml: traffic[0]: sessions must be within 0..1,000,000"),
    ("a packet of 1e30 bytes", with_("traffic", [{"rate": 1, "sessions": 1, "size": 10**30}]),
     "test.yaml: traffic[0]: size must be within 0..65535 bytes"),
    ("a controller period of 1e12 s", with_("groups.0.controller.params", {"sensor_period": 1e12}),
     "test.yaml: groups[0].controller.params: sensor_period must be within 1e-6..1e6 seconds, got 1e+12"),
    ("missing duration", with_("duration", DELETE), "test.yaml: duration: missing required key"),
    ("wrong type", with_("groups.0.count", "many"), "test.yaml: groups[0].count: expected an integer, got 'many'"),
    ("empty group name", with_("groups.0.name", " "), "test.yaml: groups[0].name: expected a name for the group"),
    ("empty output folder", with_("output", {"dir": ""}), "test.yaml: output.dir: expected a folder for the run directories"),
    ("negative count", with_("groups.0.count", 0), "test.yaml: groups[0]: count must be >= 1, got 0"),
    ("quantum not a multiple of dt", with_("quantum", "15 ms"),
     "test.yaml: quantum: the physics step physics.dt (10 ms) must divide the quantum (15 ms)"),
    ("controller period vs dt", with_("groups.0.controller.period", "25 ms"),
     "test.yaml: groups[0].controller.period: the controller period (25 ms) must be a multiple of the physics step (10 ms)"),
    ("unimportable controller", with_("groups.0.controller.class", "controllers.nope:Missing"),
     "test.yaml: groups[0].controller.class: cannot import 'controllers.nope:Missing': No module named 'controllers.nope'"),
    ("not an import string", with_("groups.0.controller.class", "RandomWalk"),
     "test.yaml: groups[0].controller.class: cannot import 'RandomWalk'"),
    ("not a Controller", with_("groups.0.controller.class", "cosim.core.timeline:EventQueue"),
     "test.yaml: groups[0].controller.class: 'cosim.core.timeline:EventQueue' is not a subclass of controllers.Controller"),
    ("unknown controller param", with_("groups.0.controller.params", {"max_sped": 3}),
     "test.yaml: groups[0].controller.params.max_sped: InstrumentBee has no param 'max_sped'; its params: "),
    ("bad controller param value", with_("groups.0.controller.params", {"max_speed": -1.0}),
     "test.yaml: groups[0].controller.params: max_speed, velocity_sigma and heading_sigma must be >= 0"),
    ("loss probability out of range", with_("network.radio.loss_probability", 1.5),
     "test.yaml: network.radio: loss_probability must be within [0, 1], got 1.5"),
    ("unknown path loss model", with_("network.radio.pathloss", {"model": "magic"}),
     "test.yaml: network.radio.pathloss.model: unknown model 'magic'; expected one of: friis, log_distance, two_ray, unit_disk"),
    ("unknown layout", with_("groups.0.layout", {"type": "spiral"}),
     "test.yaml: groups[0].layout.type: unknown type 'spiral'; "
     "expected one of: grid, line, list, point, random_box, random_disc"),
    ("bad vector", with_("groups.0.layout", {"type": "random_disc", "center": [0, 0]}),
     "test.yaml: groups[0].layout.center: expected a list of 3 numbers, got 2 items"),
    ("unknown physics backend", with_("physics.backend", "ode"),
     "test.yaml: physics.backend: expected one of 'kinematic', 'pybullet', got 'ode'"),
    ("bad duration string", with_("duration", "ten seconds"), "test.yaml: duration: cannot read 'ten seconds' as a duration"),
    ("unknown sensor", with_("groups.0.sensors", {"sonar": {}}),
     "test.yaml: groups[0].sensors.sonar: unknown sensor; expected one of: battery, bump, compass, gps, imu, range"),
    ("negative seed", with_("seed", -4), "test.yaml: seed: expected a non-negative integer, got -4"),
    ("unknown robot model", with_("groups.0.robot", {"model": "blimp"}),
     "test.yaml: groups[0].robot.model: expected one of 'point', 'quadrotor', 'diff_drive', 'omni', 'urdf', got 'blimp'"),
    ("zero sampling period", with_("output", {"trace": {"positions_every": 0}}),
     "test.yaml: output.trace: positions_every must be a positive duration, or null for no position trace"),
    ("list layout of the wrong length", with_("groups.0.layout", {"type": "list", "points": [[0, 0, 1], [1, 0, 1]]}),
     "test.yaml: groups[0].layout.points: expected 20 positions (the group's count), got 2"),
    ("ns-3 channel that does not exist", with_("network", {"backend": "ns3", "radio": {"standard": "802.11b", "channel": 200}}),
     "test.yaml: network.radio: 802.11b channel 200 does not exist; use one of 1, 2, 3"),
    ("ns-3 802.15.4 with a wifi rate",
     with_("network", {"backend": "ns3", "radio": {"standard": "802.15.4", "data_mode": "HtMcs7"}}),
     "test.yaml: network.radio.data_mode: 802.15.4 has one rate and no ns-3 data modes; remove data_mode"),
    ("ns-3 data mode typo", with_("network", {"backend": "ns3", "radio": {"standard": "802.11b", "data_mode": "DsssRate1Mbpz"}}),
     "test.yaml: network.radio.data_mode: unknown data_mode 'DsssRate1Mbpz' for 802.11b; expected one of: DsssRate1Mbps, "
     "DsssRate2Mbps"),
    ("phase outside period", with_("groups.0.controller.phase", 0.5),
     "test.yaml: groups[0].controller.phase: expected a phase in [0, period) = [0, 100 ms)"),
    ("period for a controller without a step",
     with_("groups.0.controller", {"class": "controllers.case_studies.kilobot:ChainFollower", "period": 0.1}),
     "test.yaml: groups[0].controller.period: ChainFollower has no step() for a period to time: remove the key "
     "(its own timers keep their own periods and phases)"),
    ("phase for a compiled controller without a step",
     with_("groups.0.controller", {"class": "controllers.case_studies.kilobot_compiled:ChainFollowerRobot", "phase": 0}),
     "test.yaml: groups[0].controller.phase: ChainFollowerRobot has no step() for a phase to time: remove the key "
     "(its own timers keep their own periods and phases)"),
    ("NaN radius", with_("groups.0.robot", {"radius": float("nan")}),
     "test.yaml: groups[0].robot.radius: expected a finite number, got nan"),
    ("NaN arena bound", with_("world", {"arena_lower": [float("nan"), 0, 0], "arena_upper": [10, 10, 10]}),
     "test.yaml: world.arena_lower[0]: expected a finite number, got nan"),
    ("infinite duration", with_("duration", float("inf")), "test.yaml: duration: expected a finite duration, got inf"),
    ("NaN duration", with_("duration", float("nan")), "test.yaml: duration: expected a finite duration, got nan"),
    ("infinite controller parameter", with_("groups.0.controller.params", {"max_speed": float("-inf")}),
     "test.yaml: groups[0].controller.params.max_speed: expected a finite number, got -inf"),
    ("absurd transmit power", with_("network.radio.tx_power_dbm", 1e9),
     "test.yaml: network.radio: tx_power_dbm must be within -50..60 dBm, got 1e+09"),
    ("Friis at 0 Hz", with_("network.radio.pathloss", {"model": "friis", "frequency_hz": 0}),
     "test.yaml: network.radio.pathloss: frequency_hz must be a radio frequency within 1000..3e+11 Hz, got 0"),
    ("negative range", with_("network.radio.pathloss", {"model": "unit_disk", "range_m": -30}),
     "test.yaml: network.radio.pathloss: range_m must be > 0 m and at most 1e7 m, got -30"),
    ("quantum longer than the run", with_("quantum", 5.0),
     "test.yaml: quantum: the quantum (5 s) is longer than the run (2 s)"),
    ("count beyond the machine's memory", with_("groups.0.count", 10**12),
     "test.yaml: groups[0].count: 1,000,000,000,000 robots need at least"),
    ("ns-3 802.11n with minstrel",
     with_("network", {"backend": "ns3", "radio": {"standard": "802.11n", "rate_manager": "minstrel"}}),
     "test.yaml: network.radio: ns-3's minstrel rate manager has no 802.11n (HT) rates and aborts the run"),
    ("ns-3 802.11n with aarf", with_("network", {"backend": "ns3", "radio": {"standard": "802.11n", "rate_manager": "aarf"}}),
     "test.yaml: network.radio: ns-3's aarf rate manager has no 802.11n (HT) rates"),
    ("ns-3 802.11g on channel 14", with_("network", {"backend": "ns3", "radio": {"standard": "802.11g", "channel": 14}}),
     "test.yaml: network.radio: 802.11g channel 14 does not exist; use one of 1, 2"),
    ("contention on ns-3", with_("network", {"backend": "ns3", "radio": {"contention": {"model": "csma"}}}),
     "test.yaml: network.radio.contention: ns-3 models medium access itself (802.11's DCF, 802.15.4's CSMA-CA); "
     "the fast engine's contention model goes under network.radio.fast.contention"),
    ("unknown contention model", with_("network.radio.fast", {"contention": {"model": "aloha"}}),
     "test.yaml: network.radio.fast.contention.model: unknown model 'aloha'; expected one of: csma, none"),
    ("contention window upside down", with_("network.radio.fast", {"contention": {"model": "csma", "cw_min": 63,
                                                                               "cw_max": 15}}),
     "test.yaml: network.radio.fast.contention: cw_min must be >= 0 and cw_max >= cw_min, got 63 and 15"),
    ("negative wall attenuation", with_("network.radio.obstacle_loss_db", -2.0),
     "test.yaml: network.radio: obstacle_loss_db must be >= 0 dB per obstacle crossed, got -2"),
    ("served vehicle failsafe typo", with_("mavlink", {"serve": [{"group": "bees", "port": 0, "gcs_failsafe": "rtl"}]}),
     "test.yaml: mavlink.serve[0].gcs_failsafe: expected one of 'off', 'hold', 'land', 'return', got 'rtl'"),
]


def test_every_problem_in_a_file_is_reported_at_once():
    data = with_("physics.colisions", True)
    data["groups"][0]["robot"] = {"radius": float("nan")}
    data["groups"][0]["controler"] = data["groups"][0].pop("controller")
    with pytest.raises(ScenarioError) as info:
        cosim.from_dict(data, source="test.yaml")
    assert str(info.value).splitlines() == [
        "test.yaml: 4 errors:",
        "  groups[0].controler: unknown key; expected one of: battery, controller, count, faults, layout, name, robot, sensors",
        "  groups[0].controller.class: missing required key (a string)",
        "  groups[0].robot.radius: expected a finite number, got nan",
        "  physics.colisions: unknown key; expected one of: backend, collisions, drag, dt, max_accel, solver_iterations"]
    assert len(info.value.errors) == 4


def test_each_backends_defaults_reload_on_the_other():
    """A written-out scenario spells every physics option at its default: it loads on either backend."""
    for backend in ("kinematic", "pybullet"):
        physics = {"backend": backend, "dt": "10 ms", "max_accel": None, "collisions": True, "drag": 5.0,
                   "solver_iterations": 10}
        assert cosim.from_dict(with_("physics", physics), source="test.yaml").physics.backend == backend


def test_a_missing_controller_class_is_named_as_written():
    data = with_("groups.0.controller", {"period": 0.1})
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.controller\.class: missing required key"):
        cosim.from_dict(data, source="test.yaml")


def test_a_key_given_twice_is_an_error(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("name: twice\nduration: 2\nseed: 1\nduration: 3\n")
    with pytest.raises(ScenarioError, match=r"twice.yaml: not valid YAML: the key 'duration' is given twice in one "
                                            r"mapping \(lines 2 and 4\)"):
        cosim.load(path)


@pytest.mark.parametrize(("label", "data", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_scenario_is_rejected_with_a_precise_message(label, data, message):
    with pytest.raises(ScenarioError) as info:
        cosim.from_dict(data, source="test.yaml")
    assert str(info.value).startswith(message), str(info.value)


def test_the_base_scenario_is_valid():
    assert cosim.from_dict(base_scenario(), source="test.yaml").n_nodes == 20


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("duration: [1, 2\n")
    with pytest.raises(ScenarioError, match=r"broken.yaml: not valid YAML"):
        cosim.load(bad)
    with pytest.raises(ScenarioError, match=r"missing.yaml: cannot read the file"):
        cosim.load(tmp_path / "missing.yaml")


def test_overrides_apply_before_validation(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(base_scenario()))
    s = cosim.load(path, {"groups.0.count": 7, "seed": 99, "network.radio.fast.loss_probability": 0.25})
    assert (s.n_nodes, s.seed, s.network.radio.fast.loss_probability) == (7, 99, 0.25)
    with pytest.raises(ScenarioError, match=r"groups.3: override: expected a list index below 1"):
        cosim.load(path, {"groups.3.count": 7})
    with pytest.raises(ScenarioError, match=r"groups\[0\].count: expected an integer"):
        cosim.load(path, {"groups.0.count": "x"})


def test_aliases_that_expand_into_billions_of_values_are_refused_at_once(tmp_path):
    lines = ["name: x", "seed: 1", "duration: 1", "a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    lines.append("groups: [{name: g, count: 1, controller: {class: controllers.library.station:Station, params: {t: *a8}}}]")
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert len(path.read_bytes()) < 1000
    with pytest.raises(ScenarioError, match=r"laughs.yaml: not valid YAML: its aliases \(\*name\) expand to more than "
                                            r"10,000,000 values, over the limit of 1,000,000"):
        cosim.load(path)


def test_a_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("name: x\nseed: 1\nduration: 1\nloop: &l [1, *l]\n")
    with pytest.raises(ScenarioError, match=r"loop\.yaml: not valid YAML: a recursive alias at line 4"):
        cosim.load(path)


def test_a_few_shared_aliases_are_still_fine(tmp_path):
    path = tmp_path / "shared.yaml"
    path.write_text("name: x\nseed: 1\nduration: 1\nrobot: &r {model: point, radius: 0.1}\n"
                    "groups: [{name: a, count: 1, robot: *r, controller: {class: controllers.library.station:Station}},\n"
                    "         {name: b, count: 1, robot: *r, controller: {class: controllers.library.station:Station}}]\n")
    with pytest.raises(ScenarioError, match="robot: unknown key"):  # the anchor's own key is refused as usual
        cosim.load(path)
