"""ArduPilot's JSON SITL interface: the wire format both ways, and a quadrotor of a scenario flown
in lock-step by a stand-in that speaks the firmware's side exactly (frame rate, frame count,
resends, restarts), since CI cannot hold the firmware itself.

    StandInFirmware --servo frames (UDP)--> SitlCoupling --Mode.MOTORS--> QuadrotorBank
                    <--JSON state, timestamp = simulated time--
"""

import socket
import threading
import time

import pyarrow.parquet as pq
import pytest

import cosim
from controllers import Controller
from cosim.mavlink.sitl.json_wire import ServoFrame, State, parse_servo, parse_state, quad_thrusts
from cosim.mavlink.sitl.standin import StandInFirmware
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


class SlowSetup(Controller):
    """Takes 0.3 s of wall time to set up, as a run that starts slowly (ns-3's import) does."""

    def setup(self) -> None:
        time.sleep(0.3)


def _fly(tmp_path, name, backend="kinematic", duration=4.0, controller="controllers:Controller", **standin):
    port = free_udp_port()
    firmware = StandInFirmware(port, **{"arm_at_s": 1.0, "position_after_s": 1.0, **standin}).start()
    try:
        result = cosim.run(_scenario(port, duration=duration, backend=backend, controller=controller), out_dir=tmp_path / name)
    finally:
        firmware.stop()
    assert result.status == "ok", result.error
    assert not firmware.errors
    p = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    heights = [z for n, z in zip(p["node"], p["z"]) if n == 0]
    return result, firmware, heights


def test_the_coupling_answers_at_the_frame_rate_the_firmware_asks_for_and_it_arms_and_flies(tmp_path):
    first, firmware, heights = _fly(tmp_path, "a")
    stats = first.metrics["sitl"]["robot0"]
    # ArduCopter's SITL asks for 1200 Hz: three frames per 2.5 ms physics step, none lost
    assert stats == {"frames": 4800, "resent": 0, "crossed": 0, "lost": 0, "restarts": 0, "bad_rate": 0}
    assert set(firmware.rates_sent) == {1200}
    assert [s.timestamp for s in firmware.states[:3]] == [1 / 1200, 2 / 1200, 0.0025]  # simulated time, frame by frame
    assert [text for _, text in firmware.statustexts] == ["Arming motors"]  # gyro at ~1000 Hz >= 1.8 x 400 Hz
    assert heights[0] == 0.0 and heights[-1] > 2.0  # it climbed toward its 3 m
    second, _, _ = _fly(tmp_path, "b")  # another process, another firmware instance: the same flight
    assert second.trace_digest == first.trace_digest


def _answer_once_per_step(firmware: StandInFirmware, sock: socket.socket, seconds: float, step: float = 0.0025):
    """The coupling as it was: one answer, at rest on the ground, per 2.5 ms physics step."""
    for k in range(1, round(seconds / step) + 1):
        sock.settimeout(5.0)
        _, addr = sock.recvfrom(4096)
        state = State(k * step, (0.0, 0.0, 0.0), (0.0, 0.0, -9.81), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        sock.sendto(state.encode(), addr)


@pytest.mark.parametrize("loop_rate, refused", [(400, True), (200, False)])
def test_the_stand_in_refuses_to_arm_when_answered_once_per_physics_step(loop_rate, refused):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        firmware = StandInFirmware(sock.getsockname()[1], loop_rate_hz=loop_rate).start()
        try:
            _answer_once_per_step(firmware, sock, 6.5)
        finally:
            firmware.stop()
    assert firmware.rates_sent[:3] == [1200, 401, 401]  # it asks for more, 1 Hz at a time, as the firmware does
    texts = [text for _, text in firmware.statustexts]
    if refused:  # SCHED_LOOP_RATE 400 needs a 720 Hz gyro; the 400 Hz answers pull the estimate below it
        assert texts[0] == "Arm: Gyro 0 rate 663Hz < loop rate*1.8 720Hz" and "Arming motors" not in texts
        assert texts[-1] == "Arm: Gyro 0 rate 610Hz < loop rate*1.8 720Hz"
    else:  # the workaround, SCHED_LOOP_RATE 200, arms at 5 s
        assert texts == ["Arming motors"] and firmware.armed_at == pytest.approx(5.0, abs=0.003)


def test_a_faster_sim_rate_is_followed_and_an_absurd_rate_is_refused_and_counted(tmp_path):
    _, firmware, _ = _fly(tmp_path, "fast", duration=1.0, sim_rate_hz=2000)
    assert list(dict.fromkeys(firmware.rates_sent)) == [1200, 1201, 1600, 1601, 2000]  # 3, 4, then 5 ticks per step
    assert firmware.states[-1].timestamp - firmware.states[-2].timestamp == pytest.approx(0.0005)
    port = free_udp_port()
    stop = threading.Event()

    def hostile():  # every other frame asks for 0 Hz or 65535 Hz
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.5)
            count = 0
            while not stop.is_set():
                s.sendto(ServoFrame((1200, 0, 1200, 65535)[count % 4], count, (1000,) * 16).pack(), ("127.0.0.1", port))
                try:
                    s.recvfrom(65536)
                    count += 1
                except TimeoutError:
                    pass

    thread = threading.Thread(target=hostile, daemon=True)
    thread.start()
    try:
        bad = cosim.run(_scenario(port, duration=0.5), out_dir=tmp_path / "bad")
    finally:
        stop.set()
        thread.join(5.0)
    assert bad.status == "ok", bad.error
    stats = bad.metrics["sitl"]["robot0"]
    assert stats["frames"] == 600 and stats["bad_rate"] == 300  # refused, counted, and 1200 Hz kept


def test_copies_sent_while_the_run_starts_are_not_answered_so_the_flight_does_not_depend_on_them(tmp_path):
    """The firmware takes every datagram as its latest frame's answer. A copy it sent before the run read
    its first frame, answered, would leave it a frame behind for the whole run, by as many frames as the
    wall clock allowed copies: so those are counted as crossed, and the flight is the same."""
    eager, eager_fw, eager_heights = _fly(tmp_path, "eager", duration=2.0, resend_after_s=0.02,
                                          controller="tests.cosim.mavlink.sitl.test_coupling:SlowSetup")
    _, calm_fw, calm_heights = _fly(tmp_path, "calm", duration=2.0)
    assert eager_fw.resends >= 2  # copies queued while the run started
    assert max(calm_heights) > 0.5 and eager_heights == calm_heights
    assert [s.timestamp for s in eager_fw.states] == [s.timestamp for s in calm_fw.states]
    assert eager.metrics["sitl"]["robot0"]["crossed"] >= 2 and eager.metrics["sitl"]["robot0"]["resent"] == 0


def test_a_lost_answer_is_sent_again_and_a_restart_puts_the_vehicle_back(tmp_path):
    result, firmware, heights = _fly(tmp_path, "c", ignore_answers=(600,), resend_after_s=0.2, restart_at=3600)
    stats = result.metrics["sitl"]["robot0"]  # (resends also come while the run starts up)
    assert stats["resent"] >= 1 and firmware.resends >= 1 and stats["restarts"] == 1
    assert stats["frames"] == 4800 and stats["lost"] == 0  # every resend answered, no frame taken twice
    ev = pq.read_table(result.directory / "trace" / "events.parquet").to_pydict()
    restarts = [t for t, k in zip(ev["t_ns"], ev["kind"]) if k == "sitl_restart"]
    assert len(restarts) == 1 and restarts[0] == pytest.approx(3.0e9, abs=5e6)  # frame 3600 at 3 s
    assert max(heights[:13]) > 1.5 and min(heights[13:]) < 0.5  # back on the ground after 3 s, then climbing again
    assert heights[-1] > min(heights[13:])


def test_a_sitl_group_must_be_quadrotors():
    with pytest.raises(cosim.ScenarioError, match=r"mavlink.sitl\[0\].group: firmware in lock-step flies quadrotors"):
        cosim.from_dict({
            "name": "x", "duration": 1.0, "physics": {"backend": "kinematic"}, "network": {"backend": "none"},
            "groups": [{"name": "g", "count": 1, "robot": {"model": "point"}, "controller": {"class": "controllers:Controller"}}],
            "mavlink": {"sitl": [{"group": "g"}]}})


def test_the_firmware_flies_a_rigid_pybullet_quadrotor_too(tmp_path):
    result, _, heights = _fly(tmp_path, "p", backend="pybullet", duration=2.5, arm_at_s=0.5, position_after_s=0.5)
    assert result.metrics["sitl"]["robot0"]["frames"] == 3000 and heights[-1] > 1.5


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
