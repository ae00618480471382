"""ArduPilot's JSON SITL interface: the wire format both ways, and a quadrotor of a scenario flown
in lock-step by a stand-in that speaks the firmware's side exactly (frame rate, frame count,
resends, restarts), since CI cannot hold the firmware itself.

    StandInFirmware --servo frames (UDP)--> SitlCoupling --Mode.MOTORS--> QuadrotorBank
                    <--JSON state, timestamp = simulated time--
"""

import socket

import pyarrow.parquet as pq
import pytest

import cosim
from cosim.mavlink.sitl_json import ServoFrame, State, parse_servo, parse_state, quad_thrusts
from cosim.mavlink.sitl_standin import StandInFirmware
from tests.conftest import free_udp_port


def test_servo_packets_and_answers_on_the_wire():
    frame = ServoFrame(400, 7, (2000, 1000, 1500, 1000) + (0,) * 12)
    data = frame.pack()
    assert len(data) == 40 and data[:2] == (18458).to_bytes(2, "little")
    assert parse_servo(data) == frame
    wide = ServoFrame(400, 8, (1500,) * 32)
    assert parse_servo(wide.pack()) == wide and wide.pack()[:2] == (29569).to_bytes(2, "little")
    assert parse_servo(b"\x00" * 40) is None and parse_servo(data[:-2]) is None
    # motor 1 (front-right) full, motor 3 (front-left) half: rotors front-right (3) and front-left (0)
    assert quad_thrusts(frame, 8.0) == [4.0, 0.0, 0.0, 8.0]
    state = State(1.25, (0.1, 0.0, 0.0), (0.0, 0.0, -9.81), (1.0, 2.0, -3.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    text = state.encode()
    assert text.startswith(b"\n{") and text.endswith(b"}\n") and parse_state(text) == state
    with pytest.raises(ValueError, match=r"without velocity, imu\.accel_body"):
        parse_state(b'\n{"timestamp":1,"imu":{"gyro":[0,0,0]},"position":[0,0,0],"attitude":[0,0,0]}\n')



def _scenario(port: int, duration: float = 3.0, backend: str = "kinematic", controller: str = "controllers:Controller"):
    return cosim.from_dict({
        "name": "sitl", "seed": 1, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": backend, "dt": "2.5 ms"}, "network": {"backend": "none"},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 30]},
        "output": {"trace": {"positions_every": 0.25}},
        "groups": [{"name": "sitl", "count": 1, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
                    "layout": {"type": "list", "points": [[2, 1, 0]]}, "controller": {"class": controller}},
                   {"name": "sim", "count": 1, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
                    "layout": {"type": "list", "points": [[-2, 1, 0]]}, "controller": {"class": "controllers:Controller"}}],
        "mavlink": {"sitl": [{"group": "sitl", "port": port}]}})


def _fly(tmp_path, name, backend="kinematic", **standin):
    port = free_udp_port()
    firmware = StandInFirmware(port, **standin).start()
    try:
        result = cosim.run(_scenario(port, backend=backend), out_dir=tmp_path / name)
    finally:
        firmware.stop()
    assert result.status == "ok", result.error
    assert not firmware.errors
    p = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    heights = [z for n, z in zip(p["node"], p["z"]) if n == 0]
    return result, firmware, heights


def test_the_firmware_flies_a_scenario_quadrotor_in_lock_step_and_repeats_exactly(tmp_path):
    first, firmware, heights = _fly(tmp_path, "a")
    stats = first.metrics["sitl"]["robot0"]
    assert stats == {"frames": 1201, "resent": 0, "lost": 0, "restarts": 0}  # one frame per 2.5 ms step, none lost
    assert [s.timestamp for s in firmware.states[:3]] == [0.0025, 0.005, 0.0075]  # simulated time, step by step
    assert heights[0] == 0.0 and heights[-1] > 2.0  # it climbed toward its 3 m
    second, _, _ = _fly(tmp_path, "b")  # another process, another firmware instance: the same flight
    assert second.trace_digest == first.trace_digest


def test_a_lost_answer_is_sent_again_and_a_restart_puts_the_vehicle_back(tmp_path):
    result, firmware, heights = _fly(tmp_path, "c", ignore_answers=(200,), resend_after_s=0.2, restart_at=800)
    stats = result.metrics["sitl"]["robot0"]  # (resends also come while the run starts up)
    assert stats["resent"] >= 1 and firmware.resends >= 1 and stats["restarts"] == 1
    assert stats["frames"] == 1201 and stats["lost"] == 0  # every resend answered, no step taken twice
    ev = pq.read_table(result.directory / "trace" / "events.parquet").to_pydict()
    restarts = [t for t, k in zip(ev["t_ns"], ev["kind"]) if k == "sitl_restart"]
    assert len(restarts) == 1 and restarts[0] == pytest.approx(2.0e9, abs=5e6)  # frame 800 at 2 s
    assert max(heights[:8]) > 1.5 and heights[8] < 0.5  # back on the ground at 2 s, then climbing again


def test_a_sitl_group_must_be_quadrotors():
    with pytest.raises(cosim.ScenarioError, match=r"mavlink.sitl\[0\].group: ArduPilot's JSON SITL flies quadrotors"):
        cosim.from_dict({
            "name": "x", "duration": 1.0, "physics": {"backend": "kinematic"}, "network": {"backend": "none"},
            "groups": [{"name": "g", "count": 1, "robot": {"model": "point"}, "controller": {"class": "controllers:Controller"}}],
            "mavlink": {"sitl": [{"group": "g"}]}})


def test_the_firmware_flies_a_rigid_pybullet_quadrotor_too(tmp_path):
    result, _, heights = _fly(tmp_path, "p", backend="pybullet")
    assert result.metrics["sitl"]["robot0"]["frames"] == 1201 and heights[-1] > 2.0


def test_the_controller_of_a_firmware_flown_quadrotor_cannot_move_it(tmp_path):
    port = free_udp_port()
    firmware = StandInFirmware(port).start()
    try:
        scenario = _scenario(port, controller="controllers.library.waypoints:WaypointFlyer")
        result = cosim.run(scenario, out_dir=tmp_path / "w")
    finally:
        firmware.stop()
    assert result.status == "failed" and "flown by ArduPilot firmware over JSON SITL" in result.error


def test_a_busy_firmware_port_fails_naming_the_key(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        result = cosim.run(_scenario(taken.getsockname()[1]), out_dir=tmp_path / "busy")
    assert result.status == "failed"
    assert "mavlink.sitl[0].port: udp 127.0.0.1:" in result.error and "Address already in use" in result.error
