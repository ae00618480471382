"""MAVLink inside a running scenario: ghosts of (stand-in) real vehicles and simulated robots served
as vehicles, all over UDP on 127.0.0.1, paced to the wall clock.

Mixed scenario (configs/mavlink_mixed.yaml), the vehicle's local frame 5 m east and 2 m south of the arena's:

    stand-in ArduPilot copter --UDP--> ghost twin, node 0 (leader) --radio beacons--> followers 1..4 (quadrotors)
             ^                                 |
             +------ position setpoints -------+
"""

import math
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
from pymavlink.dialects.v20 import common as mav

import cosim
from cosim.errors import ScenarioError
from cosim.mavlink.client.adapter import MavlinkError, MavlinkLink, MavlinkVehicle
from cosim.mavlink.client.launch import streaming_wait, take_off
from cosim.mavlink.client.remote_robot import MavlinkRobot
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import ARDUPILOT, ARDUPILOT_ROVER, PX4
from cosim.mavlink.serve.standin import StandInVehicle
from tests.conftest import ROOT, free_udp_port

ARENA = GeoOrigin(47.3977, 8.5456, 488.0)
SHIFT = np.array([5.0, -2.0, 0.0])  # where the stand-in's local origin lies in the arena


def _trace(directory, name):
    return pq.read_table(directory / "trace" / f"{name}.parquet").to_pydict()


def _last_positions(directory, n):
    p = _trace(directory, "positions")
    t = np.array(p["t_ns"])
    last = t == t.max()
    xyz = np.stack([np.array(p[k])[last] for k in "xyz"], axis=1)
    return xyz[np.argsort(np.array(p["node"])[last])][:n]



def test_a_ghost_leads_simulated_followers(tmp_path):
    standin = StandInVehicle("ardupilot", origin=GeoOrigin(*ARENA.to_geodetic(*SHIFT)))
    with standin:
        scenario = cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {
            "duration": 12.0, "mavlink.ghosts.0.port": standin.port, "mavlink.ghosts.0.mode": "connect",
            "groups.0.controller.params.waypoints": [[8.0, 0.0]], "groups.0.controller.params.loop": False})
        result = cosim.run(scenario, out_dir=tmp_path / "mixed")
        local = standin.model.pos[0].copy()
    assert result.status == "ok", result.error
    m = result.metrics
    assert m["wall_s"] >= m["simulated_s"] - 0.05  # paced: never ahead of the wall clock
    assert m["realtime"]["speed"] == 1.0 and m["realtime"]["polls"] == 601
    assert m["mavlink"]["ghost0"] == {"stale_events": 0, "failsafe": None}
    rec = _trace(result.directory, "records")
    assert (0, "waypoint", 0.0) in zip(rec["node"], rec["name"], rec["value"])  # the twin reached its arena target
    assert sorted(n for n, k in zip(rec["node"], rec["name"]) if k == "leader_seen") == [1, 2, 3, 4]
    final = _last_positions(result.directory, 5)
    # the vehicle flew 8 m east of where it took off, in its own frame; its twin shows it in the arena's
    assert local[0] == pytest.approx(8.0, abs=0.5) and local[1] == pytest.approx(0.0, abs=0.3)
    assert np.linalg.norm(final[0, :2] - (local[:2] + SHIFT[:2])) < 0.3
    starts = np.array([[-3, -3], [3, -3], [-3, 3], [-6, 0]], dtype=float)
    for k in range(4):  # each follower holds its formation slot about the leader it only hears
        assert np.linalg.norm(final[k + 1, :2] - (final[0, :2] - SHIFT[:2] + starts[k])) < 0.5, k
        assert abs(final[k + 1, 2] - final[0, 2]) < 0.3


def test_a_listening_ghost_of_a_cosim_serve_vehicle_goes_stale_when_it_stops(tmp_path):
    """The README's recipe: `cosim serve-vehicle --out` sends to the scenario, which listens; the
    network is ns-3's 802.11b, so the twin's beacons reach the followers through its ns-3 node. The
    vehicle process ends after 10 s and its twin is flagged stale and stops where it was last seen;
    the run keeps everything it computed and ends failed, saying the real vehicle was lost. (10 s: the
    take-off, and a first compile with the other core busy, must fit in the vehicle's lifetime.)"""
    from netstack.ns3.loader import load

    load()  # ns-3 loads once per session; load it before the vehicle's lifetime starts to run
    port = free_udp_port()
    cmd = [sys.executable, "-m", "cosim.cli", "serve-vehicle", "--port", "0", "--out", f"127.0.0.1:{port}",
           "--duration", "10", "--personality", "ardupilot"]
    vehicle = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        scenario = cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {
            "duration": 20.0, "mavlink.ghosts.0.port": port, "mavlink.ghosts.0.mode": "listen",
            "mavlink.ghosts.0.land_at_end": False,
            "network": {"backend": "ns3", "radio": {"standard": "802.11b", "data_mode": "DsssRate1Mbps",
                                                    "rate_manager": "constant"}}})
        result = cosim.run(scenario, out_dir=tmp_path / "stale")
    finally:
        out, err = vehicle.communicate(timeout=30)
    assert vehicle.returncode == 0, err
    assert "serving a simulated ardupilot vehicle (system 1) on udp 127.0.0.1:" in out
    assert result.status == "failed"
    assert result.error.startswith("a real vehicle did not do what was asked: ghost of robot 0 (MAVLink system 1): "
                                   "no heartbeat for 3.") and result.error.endswith("s: vehicle lost")
    assert result.metrics["mavlink"]["ghost0"]["stale_events"] == 1
    rec = _trace(result.directory, "records")
    assert sorted(n for n, k in zip(rec["node"], rec["name"]) if k == "leader_seen") == [1, 2, 3, 4]
    ev = _trace(result.directory, "events")
    stale = [(t, d) for t, k, d in zip(ev["t_ns"], ev["kind"], ev["detail"]) if k == "ghost_stale"]
    assert len(stale) == 1 and "no position from vehicle 1" in stale[0][1]
    p = _trace(result.directory, "positions")
    before = [z for t, n, z in zip(p["t_ns"], p["node"], p["z"]) if n == 0 and t < stale[0][0]]
    after = [(x, y, z) for t, n, x, y, z in zip(p["t_ns"], p["node"], p["x"], p["y"], p["z"]) if n == 0 and t > stale[0][0]]
    assert max(before) > 1.0  # it was flying
    assert len(after) >= 3 and all(q == after[0] for q in after)  # a stale twin stays where it was last seen


def _served_scenario(quad_port: int, rover_port: int) -> dict:
    return {
        "name": "served", "seed": 2, "duration": 24.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "none"},
        "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 20]},
        "output": {"trace": {"positions_every": 0.5}},
        "mavlink": {"speed": 2.0, "origin": [47.0, 8.0, 400.0], "serve": [
            {"group": "quad", "port": quad_port, "personality": "px4", "signing_key_env": "COSIM_TEST_KEY"},
            {"group": "rover", "port": rover_port, "personality": "ardupilot_rover", "first_sysid": 7}]},
        "groups": [
            {"name": "quad", "count": 1, "robot": {"model": "quadrotor", "airframe": "crazyflie"},
             "layout": {"type": "list", "points": [[0, 0, 0]]}, "controller": {"class": "controllers:Controller"}},
            {"name": "rover", "count": 1, "robot": {"model": "diff_drive", "radius": 0.2},
             "layout": {"type": "list", "points": [[-4, 0, 0]]}, "controller": {"class": "controllers:Controller"}},
        ],
    }


def test_served_quadrotor_and_rover_are_flown_from_outside(tmp_path, monkeypatch):
    """A PX4 quadrotor (signed link) and an ArduPilot rover, both robots of a running scenario,
    flown by our adapter through their MAVLink endpoints."""
    monkeypatch.setenv("COSIM_TEST_KEY", "correct horse battery staple")
    qport, rport = free_udp_port(), free_udp_port()
    scenario = cosim.from_dict(_served_scenario(qport, rport))
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.setdefault("r", cosim.run(scenario, out_dir=tmp_path / "served")))
    runner.start()
    unsigned = MavlinkLink("127.0.0.1", qport)
    qlink = MavlinkLink("127.0.0.1", qport, signing_key="correct horse battery staple")
    rlink = MavlinkLink("127.0.0.1", rport)
    try:
        quad, rover = MavlinkVehicle(qlink, 1, PX4), MavlinkVehicle(rlink, 7, ARDUPILOT_ROVER)
        take_off(quad, 2.0)
        keep_quad = streaming_wait([quad])  # PX4 leaves OFFBOARD 1 s after its setpoints stop
        rogue = MavlinkVehicle(unsigned, 1, PX4)
        with pytest.raises(Exception, match="did not acknowledge"):
            rogue.command(400, 0, retries=2, timeout_s=0.3, wait=keep_quad)  # an unsigned disarm is dropped, not obeyed
        take_off(rover, 0.0, wait=keep_quad)
        MavlinkRobot(quad).fly("position", 3.0, 2.0, 2.5, 0.5)
        MavlinkRobot(rover).fly("position", -1.0, 3.0, 0.0)
        while runner.is_alive():
            for link in (qlink, rlink):
                link.poll()
            now = time.monotonic()
            quad.tick(now)
            rover.tick(now)
            time.sleep(0.02)
    finally:
        runner.join()
        for link in (unsigned, qlink, rlink):
            link.close()
    result = outcome["r"]
    assert result.status == "ok", result.error
    assert rover.latest["HEARTBEAT"].type == 10  # MAV_TYPE_GROUND_ROVER
    assert rover.latest["HEARTBEAT"].custom_mode == ARDUPILOT_ROVER.modes["guided"]
    final = _last_positions(result.directory, 2)
    assert np.linalg.norm(final[0] - [3.0, 2.0, 2.5]) < 0.3
    assert np.linalg.norm(final[1, :2] - [-1.0, 3.0]) < 0.3
    ports = result.metrics["mavlink"]
    assert ports[f"127.0.0.1:{qport}"]["rejected_signature"] == 2 and ports[f"127.0.0.1:{rport}"]["rejected_signature"] == 0
    assert result.metrics["realtime"]["speed"] == 2.0
    assert result.metrics["wall_s"] >= 24.0 / 2.0 - 0.05


def test_a_served_vehicles_own_failsafe_shows_in_the_trace_metrics_and_summary(tmp_path):
    """A client takes the served PX4 quadrotor into OFFBOARD, then falls silent: the vehicle falls back
    to Position mode after 1 s, returns home after 5 s without a ground station, and the run says so
    in its events, metrics.json and summary.txt."""
    data = _served_scenario(free_udp_port(), 0)
    data["duration"] = 12.0
    data["mavlink"]["serve"] = [{k: v for k, v in data["mavlink"]["serve"][0].items() if k != "signing_key_env"}]
    data["groups"] = data["groups"][:1]
    port = data["mavlink"]["serve"][0]["port"]
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.setdefault("r", cosim.run(cosim.from_dict(data), out_dir=tmp_path / "s")))
    runner.start()
    link = MavlinkLink("127.0.0.1", port)
    try:
        take_off(MavlinkVehicle(link, 1, PX4), 2.0)  # then no more setpoints
    finally:
        runner.join()
        link.close()
    result = outcome["r"]
    assert result.status == "ok", result.error
    ev = _trace(result.directory, "events")
    taken = [(n, d) for n, k, d in zip(ev["node"], ev["kind"], ev["detail"]) if k == "served_failsafe"]
    both = ["Failsafe: offboard signal lost, Position mode", "Failsafe: GCS lost, return"]
    assert taken == [(0, f"vehicle 1: {text}") for text in both]
    assert result.metrics["mavlink"]["served0"] == {"failsafes": both}
    summary = (result.directory / "summary.txt").read_text()
    assert f"failsafe   served0 (a served vehicle) by itself: {'; '.join(both)}" in summary


@pytest.mark.parametrize("change, key, message", [
    ({"mavlink": {"serve": [{"group": "nobody", "port": 0}]}}, "mavlink.serve[0].group", "no group named 'nobody'"),
    ({"mavlink": {"serve": [{"group": "rover", "port": 0, "personality": "px4"}]}}, "mavlink.serve[0].personality",
     "serves robot.model: quadrotor"),
    ({"mavlink": {"ghosts": [{"group": "quad", "port": 14550}]}}, "groups[0].robot.model", "a ghost's body is the real vehicle"),
    ({"mavlink": {"speed": 2.0, "ghosts": [{"group": "quad", "port": 14550}]}}, "mavlink", "needs speed: 1"),
    ({"mavlink": {"paced": False, "ghosts": [{"group": "quad", "port": 14550}]}}, "mavlink", "and paced: true"),
    ({"mavlink": {"speed": 3.0, "paced": False, "serve": [{"group": "quad", "port": 0}]}}, "mavlink",
     "speed 3 is a pace against the wall clock, but paced is false"),
    ({"mavlink": {"serve": [{"group": "quad", "port": 0, "first_sysid": 0}]}}, "mavlink.serve[0]", "first_sysid"),
    ({"mavlink": {"serve": [{"group": "quad", "port": 0}, {"group": "quad", "port": 0}]}}, "mavlink.serve[1].group",
     "already bound"),
    ({"mavlink": {"serve": [{"group": "quad", "port": 0, "colour": "red"}]}}, "mavlink.serve[0].colour", "unknown key"),
])
def test_bad_mavlink_sections_name_the_key(change, key, message):
    data = {**_served_scenario(0, 0), **change}
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data, "served.yaml")
    assert err.value.path == key and message in str(err.value) and "served.yaml" in str(err.value)


def test_a_busy_port_or_a_missing_key_fails_before_the_run(tmp_path, monkeypatch):
    monkeypatch.delenv("COSIM_TEST_KEY", raising=False)
    busy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    busy.bind(("127.0.0.1", 0))
    try:
        data = _served_scenario(busy.getsockname()[1], 0)
        data["mavlink"]["serve"][0].pop("signing_key_env")
        result = cosim.run(cosim.from_dict(data, "served.yaml"), out_dir=tmp_path / "busy")
        assert result.status == "failed" and "mavlink.serve[0].port" in result.error and "cannot bind" in result.error
    finally:
        busy.close()
    result = cosim.run(cosim.from_dict(_served_scenario(0, 0), "served.yaml"), out_dir=tmp_path / "key")
    assert result.status == "failed" and "signing_key_env" in result.error and "COSIM_TEST_KEY" in result.error


def test_the_adapter_holds_when_the_controller_stops_commanding():
    """A velocity setpoint older than its time-to-live becomes a hold at the vehicle's position."""
    with StandInVehicle("px4", speed=1.0) as standin:
        link = MavlinkLink("127.0.0.1", standin.port)
        vehicle = MavlinkVehicle(link, 1, PX4, setpoint_ttl_s=0.5)
        try:
            take_off(vehicle, 2.0)
            robot = MavlinkRobot(vehicle)
            robot.set_velocity(1.5)  # once, and never again
            end = time.monotonic() + 4.0
            speeds = []
            while time.monotonic() < end:
                link.poll()
                vehicle.tick(time.monotonic())
                speeds.append(float(np.hypot(*standin.model.vel[0, :2])))
                time.sleep(0.02)
        finally:
            link.close()
    assert max(speeds) > 0.5  # it did move on the command
    assert speeds[-1] < 0.1 and vehicle.setpoint[0] == "position"  # and then held
    assert not math.isnan(vehicle.setpoint[1])


def _mission_scenario(port: int, controller: dict) -> cosim.Scenario:
    legs = [(SHIFT + np.array([4.0, 0.0, 3.0])).tolist(), (SHIFT + np.array([4.0, 4.0, 3.0])).tolist()]
    return cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {
        "duration": 28.0, "mavlink.ghosts.0.port": port, "mavlink.ghosts.0.mode": "connect",
        "mavlink.ghosts.0.mission": [{"at": legs[0], "hold": "1 s"}, {"at": legs[1], "radius": 0.5}],
        "mavlink.ghosts.0.mission_end": "land", "groups.0.controller": controller})


def test_a_ghost_flies_its_scenario_mission(tmp_path):
    """`mission:` on a ghost group: uploaded, verified by download and started on the real vehicle
    (ArduPilot's dialect); its twin follows in the arena while the simulated followers fly."""
    standin = StandInVehicle("ardupilot", origin=GeoOrigin(*ARENA.to_geodetic(*SHIFT)))
    with standin:
        result = cosim.run(_mission_scenario(standin.port, {"class": "controllers:Controller"}), out_dir=tmp_path / "m")
        local, armed = standin.model.pos[0].copy(), standin.endpoint.state.armed
    assert result.status == "ok", result.error
    ghost = result.metrics["mavlink"]["ghost0"]
    assert ghost["mission_reached"] == [0, 1, 2, 3] and ghost["mission_complete"] and ghost["failsafe"] is None
    assert local == pytest.approx([4.0, 4.0, 0.0], abs=0.6) and not armed  # landed after the last waypoint
    final = _last_positions(result.directory, 1)[0]
    assert np.linalg.norm(final[:2] - (local[:2] + SHIFT[:2])) < 0.3
    ev = _trace(result.directory, "events")
    assert ("ghost_mission", "vehicle 1 flies 2 waypoints, then land") in zip(ev["kind"], ev["detail"])


def test_a_mission_ghost_refuses_motion_commands_from_its_controller(tmp_path):
    standin = StandInVehicle("ardupilot", origin=GeoOrigin(*ARENA.to_geodetic(*SHIFT)))
    with standin:
        leader = {"class": "controllers.library.follow_leader:FollowLeader",
                  "params": {"leader": True, "waypoints": [[8, 0]], "altitude": 3.0}}
        result = cosim.run(_mission_scenario(standin.port, leader), out_dir=tmp_path / "m")
    assert result.status == "failed" and "flying its scenario mission" in result.error


def test_a_ghost_whose_vehicle_never_answers_fails_the_run_naming_the_address(tmp_path):
    port = free_udp_port()  # nothing listens there
    scenario = cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {
        "duration": 2.0, "mavlink.ghosts.0.port": port, "mavlink.ghosts.0.mode": "connect",
        "mavlink.ghosts.0.connect_timeout": 0.5})
    assert cosim.load(ROOT / "configs" / "mavlink_mixed.yaml").mavlink.ghosts[0].connect_timeout_ns == 90_000_000_000
    result = cosim.run(scenario, out_dir=tmp_path / "silent")
    assert result.status == "failed"
    assert (f"the ghost of robot 0 (MAVLink 127.0.0.1:{port}): vehicle 1 not ready within 0.5 s; stopped at: "
            "system 1: no heartbeat yet") in result.error and "is the vehicle on and the address right?" in result.error


def _cold_ghost_run(tmp_path, name: str, cold_s: float, timeout_s: float):
    """A ghost scenario against a stand-in switched on just now: no position for `cold_s`."""
    stages: list[str] = []
    standin = StandInVehicle("ardupilot", origin=GeoOrigin(*ARENA.to_geodetic(*SHIFT)), position_after_s=cold_s)
    with standin:
        scenario = cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {
            "duration": 2.0, "mavlink.ghosts.0.port": standin.port, "mavlink.ghosts.0.mode": "connect",
            "mavlink.ghosts.0.connect_timeout": timeout_s})
        result = cosim.run(scenario, out_dir=tmp_path / name, phase=stages.append)
    return result, stages


def test_a_ghost_waits_for_a_cold_vehicle_in_stages_and_a_timeout_names_the_stage(tmp_path):
    """Heartbeats come at once, a position only once the vehicle's GPS and EKF have one: the run waits,
    saying what for, and flies once it is ready; a wait too short fails naming the stage."""
    result, stages = _cold_ghost_run(tmp_path, "cold", cold_s=3.0, timeout_s=20.0)
    assert result.status == "ok", result.error
    kinds = [("heartbeat" in t and "no position yet" in t, "ready at" in t) for t in stages]
    assert (True, False) in kinds and kinds[-1] == (False, True), stages  # waited for a position, then ready
    cold = next(t for t in stages if "no position yet" in t and "EKF: no report" not in t)
    assert "(ardupilotmega, quadrotor)" in cold and "EKF: no horizontal position" in cold and "GPS: no fix, 0 satellites" in cold
    assert "GPS: 3D fix, 10 satellites" in stages[-1]
    result, _ = _cold_ghost_run(tmp_path, "too_short", cold_s=30.0, timeout_s=1.5)
    assert result.status == "failed"
    assert "vehicle 1 not ready within 1.5 s; stopped at: system 1: heartbeat (ardupilotmega, quadrotor); " \
           "no position yet (EKF: no horizontal position" in result.error
    assert "raise mavlink.ghosts[].connect_timeout to wait longer" in result.error


def test_a_cold_ardupilot_refuses_to_arm_in_guided_until_it_has_a_position():
    standin = StandInVehicle("ardupilot", position_after_s=1.5)
    with standin:
        link = MavlinkLink("127.0.0.1", standin.port)
        v = MavlinkVehicle(link, 1, ARDUPILOT)
        v.tick(time.monotonic())
        v.command(mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, ARDUPILOT.modes["guided"])
        with pytest.raises(MavlinkError, match=r"refused command 400 .*Arm: Need Position Estimate"):
            v.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1, retries=1)
        time.sleep(1.6)
        v.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1)
        assert standin.endpoint.state.armed and "Arming motors" in v.statustext
        link.close()


def test_a_ghosts_controller_takes_the_command_matrix_as_simulated_bodies_do(tmp_path):
    """The command matrix's ghost cell: the twin's controller sets a heading and flies forward along
    it; the real vehicle (a stand-in here) yaws and flies that way, and the twin shows it."""
    standin = StandInVehicle("ardupilot", origin=GeoOrigin(*ARENA.to_geodetic(*SHIFT)))
    probe = {"class": "tests.controllers.helpers:Command",
             "params": {"method": "set_heading", "args": [1.0], "then": "set_velocity", "then_args": [0.5, 0.0, 0.0],
                        "repeat": True}}
    with standin:
        scenario = cosim.load(ROOT / "configs" / "mavlink_mixed.yaml", {
            "duration": 10.0, "mavlink.ghosts.0.port": standin.port, "mavlink.ghosts.0.mode": "connect",
            "groups.0.controller": probe})
        result = cosim.run(scenario, out_dir=tmp_path / "ghost")
        yaw = float(standin.model.euler[0, 2])
    assert result.status == "ok", result.error
    assert abs(yaw - 1.0) < 0.1
    p = _trace(result.directory, "positions")
    late = [(h, vx, vy) for n, t, h, vx, vy in zip(p["node"], p["t_ns"], p["heading"], p["vx"], p["vy"])
            if n == 0 and 7e9 <= t <= 9e9]  # the twin, flying, before the run's end lands the vehicle
    h, vx, vy = np.mean(np.array(late), axis=0)
    assert abs(h - 1.0) < 0.1
    assert abs(np.arctan2(vy, vx) - 1.0) < 0.15 and np.hypot(vx, vy) == pytest.approx(0.5, abs=0.1)
