"""A served vehicle's own behaviour when its ground station falls silent (GCS-loss failsafe), the
return-home and refused flight modes, stepped unpaced in this thread with a pymavlink ground
station on 127.0.0.1."""

import math
import socket

import numpy as np
import pytest
from pymavlink.dialects.v20 import ardupilotmega as apm
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import ARDUPILOT, PX4
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.failsafe import GcsFailsafe
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank


class Bench:
    """One quadrotor and its endpoint, stepped by `run`, with a ground station that beats once per
    simulated second while `beating`."""

    def __init__(self, personality=ARDUPILOT, **failsafe) -> None:
        self.bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
        kwargs = {"gcs_failsafe": GcsFailsafe(**failsafe)} if failsafe else {}
        self.ep = SimVehicleEndpoint(QuadBody(self.bank, 0), 0, personality, origin=GeoOrigin(47.0, 8.0, 400.0), **kwargs)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setblocking(False)
        self.mav = mav.MAVLink(None, srcSystem=255, srcComponent=190)
        self.beating = True
        self.texts: list[str] = []
        self.acks: dict[int, int] = {}
        self._beat_t = -math.inf

    def send(self, msg) -> None:
        self.sock.sendto(msg.pack(self.mav), ("127.0.0.1", self.ep.port))

    def run(self, seconds: float) -> None:
        for k in range(round(seconds / self.bank.tick)):
            self.bank.step()
            if k % 4:
                continue
            if self.beating and self.bank.t - self._beat_t >= 1.0:
                self._beat_t = self.bank.t
                self.send(mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3))
            self.ep.poll(self.bank.t)
            self._read()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                return
            for m in self.mav.parse_buffer(data) or []:
                if m.get_type() == "STATUSTEXT":
                    self.texts.append(m.text)
                elif m.get_type() == "COMMAND_ACK":
                    self.acks[m.command] = m.result

    def command(self, cmd: int, *params: float) -> int:
        self.acks.pop(cmd, None)
        self.send(mav.MAVLink_command_long_message(1, 1, cmd, 0, *(list(params) + [0.0] * (7 - len(params)))))
        self.run(0.05)
        return self.acks[cmd]

    def mode(self, name: str) -> int:
        custom = self.ep.state.personality.modes[name]
        if self.ep.state.personality is PX4:
            return self.command(mav.MAV_CMD_DO_SET_MODE, 1, (custom >> 16) & 0xFF, (custom >> 24) & 0xFF)
        return self.command(mav.MAV_CMD_DO_SET_MODE, 1, custom)

    def fly_out(self, east: float = 8.0, up: float = 3.0) -> None:
        """Arm, take off in GUIDED and fly `east` metres east at `up` metres."""
        self.run(1.0)
        assert self.mode("guided") == mav.MAV_RESULT_ACCEPTED
        assert self.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1) == mav.MAV_RESULT_ACCEPTED
        assert self.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, up) == mav.MAV_RESULT_ACCEPTED
        self.run(5.0)
        self.send(mav.MAVLink_set_position_target_local_ned_message(
            0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000, 0.0, east, -up, 0, 0, 0, 0, 0, 0, 0, 0))
        self.run(8.0)
        assert math.dist(self.bank.pos[0], (east, 0.0, up)) < 0.3

    def close(self) -> None:
        self.sock.close()
        self.ep.close()


@pytest.fixture
def bench(request):
    b = Bench(**getattr(request, "param", {}))
    yield b
    b.close()


@pytest.mark.parametrize("bench", [{"timeout_s": 5.0, "action": "return"}], indirect=True)
def test_silent_ground_station_makes_the_vehicle_return_home_and_land(bench):
    bench.fly_out()
    bench.send(mav.MAVLink_param_set_message(1, 1, b"RTL_ALT", 500.0, mav.MAV_PARAM_TYPE_REAL32))  # ArduCopter's: cm
    bench.beating = False
    bench.run(4.8)
    assert bench.ep.state.mode == "guided"  # not yet: 5 s of silence
    bench.run(0.6)
    assert bench.ep.state.mode == "rtl"
    assert any("GCS lost" in t for t in bench.texts)
    bench.run(4.0)
    assert bench.bank.pos[0, 2] > 4.5  # it climbed to the return altitude first
    bench.run(30.0)
    assert math.dist(bench.bank.pos[0, :2], (0.0, 0.0)) < 0.5 and bench.bank.pos[0, 2] == 0.0
    assert not bench.ep.state.armed


@pytest.mark.parametrize("bench", [{"timeout_s": 2.0, "action": "land"}], indirect=True)
def test_land_action_lands_where_it_is(bench):
    bench.fly_out()
    bench.beating = False
    bench.run(2.5)
    assert bench.ep.state.mode == "land"
    bench.run(10.0)
    assert bench.bank.pos[0, 2] == 0.0 and not bench.ep.state.armed
    assert math.dist(bench.bank.pos[0, :2], (8.0, 0.0)) < 0.5


@pytest.mark.parametrize("bench", [{"timeout_s": 2.0, "action": "hold"}], indirect=True)
def test_hold_action_holds_and_a_returning_ground_station_resets_the_watch(bench):
    bench.fly_out()
    bench.beating = False
    bench.run(3.0)
    assert bench.ep.state.mode == "hold"
    here = bench.bank.pos[0].copy()
    bench.run(5.0)
    assert np.linalg.norm(bench.bank.pos[0] - here) < 0.2
    bench.beating = True
    bench.run(1.0)
    assert bench.mode("guided") == mav.MAV_RESULT_ACCEPTED
    bench.beating = False
    bench.run(2.5)
    assert bench.ep.state.mode == "hold"  # the second loss trips it again


@pytest.mark.parametrize("bench", [{"timeout_s": 2.0, "action": "off"}], indirect=True)
def test_failsafe_off_keeps_flying_the_last_setpoint(bench):
    bench.fly_out()
    bench.beating = False
    bench.run(20.0)
    assert bench.ep.state.mode == "guided" and bench.ep.state.armed
    assert math.dist(bench.bank.pos[0], (8.0, 0.0, 3.0)) < 0.3


def test_a_script_that_never_sent_a_heartbeat_is_not_cut_off(bench):
    bench.beating = False
    bench.fly_out()
    bench.run(20.0)
    assert bench.ep.state.mode == "guided"


def test_rtl_mode_flies_home(bench):
    bench.fly_out()
    bench.send(mav.MAVLink_param_set_message(1, 1, b"RTL_ALT", 200.0, mav.MAV_PARAM_TYPE_REAL32))
    assert bench.mode("rtl") == mav.MAV_RESULT_ACCEPTED
    bench.run(30.0)
    assert math.dist(bench.bank.pos[0, :2], (0.0, 0.0)) < 0.5 and bench.bank.pos[0, 2] == 0.0


@pytest.mark.parametrize("name", ["stabilize", "auto"])
def test_modes_it_cannot_fly_are_refused_with_the_reason(bench, name):
    bench.run(1.0)
    assert bench.mode(name) == bench.ep.state.personality.action_refused
    assert any(name.upper() in t for t in bench.texts)
    assert bench.ep.state.mode == "stabilize"  # the boot mode stays


def test_rtl_before_arming_is_refused(bench):
    bench.run(1.0)
    assert bench.mode("rtl") == bench.ep.state.personality.action_refused


@pytest.mark.parametrize("bench", [{"personality": ARDUPILOT}, {"personality": PX4}], indirect=True,
                         ids=["ardupilot", "px4"])
def test_message_intervals_are_flown_not_just_acknowledged(bench):
    """ArduPilot streams nothing but heartbeats and TIMESYNC until a ground station asks (its default
    rates are 0); PX4 streams ATTITUDE at 10 Hz unasked. Both fly SET_MESSAGE_INTERVAL."""
    counts: dict[str, int] = {}
    unasked = bench.ep.state.personality.streams_unasked

    def count(seconds: float) -> dict[str, int]:
        counts.clear()
        orig = bench.mav.parse_buffer

        def tally(data):
            msgs = orig(data) or []
            for m in msgs:
                counts[m.get_type()] = counts.get(m.get_type(), 0) + 1
            return msgs

        bench.mav.parse_buffer = tally
        bench.run(seconds)
        bench.mav.parse_buffer = orig
        return dict(counts)

    bench.run(1.0)
    first = count(11.0)
    if unasked:
        assert 109 <= first.get("ATTITUDE", 0) <= 111  # 10 Hz by default
    else:
        assert set(first) == {"HEARTBEAT", "TIMESYNC"} and first["TIMESYNC"] == 1  # one TIMESYNC request per 10 s
    assert bench.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, mav.MAVLINK_MSG_ID_ATTITUDE, 40_000) == mav.MAV_RESULT_ACCEPTED
    assert 49 <= count(2.0)["ATTITUDE"] <= 51  # 25 Hz
    assert bench.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, mav.MAVLINK_MSG_ID_ATTITUDE, -1) == mav.MAV_RESULT_ACCEPTED
    assert "ATTITUDE" not in count(2.0)
    assert bench.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, mav.MAVLINK_MSG_ID_ATTITUDE, 0) == mav.MAV_RESULT_ACCEPTED
    assert 19 <= count(2.0).get("ATTITUDE", 0) <= 21 if unasked else "ATTITUDE" not in count(2.0)  # the default again
    for msg_id in (mav.MAVLINK_MSG_ID_GPS_RAW_INT, mav.MAVLINK_MSG_ID_BATTERY_STATUS, mav.MAVLINK_MSG_ID_VFR_HUD):
        assert bench.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, msg_id, 200_000) == mav.MAV_RESULT_ACCEPTED  # as the firmware
    got = count(2.0)
    assert all(9 <= got.get(k, 0) <= 11 for k in ("GPS_RAW_INT", "BATTERY_STATUS", "VFR_HUD")), sorted(got.items())  # 5 Hz
    assert bench.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, mav.MAVLINK_MSG_ID_DEBUG_VECT, 100_000) == mav.MAV_RESULT_DENIED
    assert bench.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, mav.MAVLINK_MSG_ID_ATTITUDE, 1_000) == mav.MAV_RESULT_DENIED
    assert any("message 250 is not streamed" in t for t in bench.texts)


def test_targets_beyond_any_experiment_are_refused_with_the_reason(bench):
    bench.fly_out()
    here = bench.bank.pos[0].copy()
    far = mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000,
                                                            0.0, 5e6, -3.0, 0, 0, 0, 0, 0, 0, 0, 0)
    bench.send(far)
    fast = mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1100_0111,
                                                             0, 0, 0, 500.0, 0.0, 0.0, 0, 0, 0, 0, 0)
    bench.send(fast)
    assert bench.command(mav.MAV_CMD_DO_REPOSITION, -1, 0, 0, math.nan, 1000.0, 8.0, 10.0) == mav.MAV_RESULT_DENIED
    bench.run(2.0)
    texts = " | ".join(bench.texts)
    assert "setpoint refused: target 5000 km away (max 100 km)" in texts
    assert "setpoint refused: speed 500 m/s (max 100)" in texts
    assert "Reposition: latitude 1000 beyond the poles" in texts
    assert np.linalg.norm(bench.bank.pos[0] - here) < 0.3  # it kept its place


@pytest.mark.parametrize("bench", [{"personality": ARDUPILOT}], indirect=True)
def test_every_stream_of_the_firmware_is_served_on_request(bench):
    """What ArduPilot streams from a vehicle with an IMU, a baro, a compass, a GPS and a battery
    monitor, group by group (REQUEST_DATA_STREAM), with readings of a vehicle resting level."""
    bench.mav = apm.MAVLink(None, srcSystem=255, srcComponent=190)  # ArduPilot's dialect: MEMINFO, AHRS, WIND...
    got: dict[str, list] = {}
    orig = bench.mav.parse_buffer

    def keep(data):
        msgs = orig(data) or []
        for m in msgs:
            got.setdefault(m.get_type(), []).append(m)
        return msgs

    bench.mav.parse_buffer = keep
    bench.run(0.5)
    for group in (mav.MAV_DATA_STREAM_RAW_SENSORS, mav.MAV_DATA_STREAM_EXTENDED_STATUS, mav.MAV_DATA_STREAM_RC_CHANNELS,
                  mav.MAV_DATA_STREAM_EXTRA1, mav.MAV_DATA_STREAM_EXTRA2, mav.MAV_DATA_STREAM_EXTRA3,
                  mav.MAV_DATA_STREAM_POSITION):
        bench.send(mav.MAVLink_request_data_stream_message(1, 1, group, 4, 1))
    bench.run(2.0)
    firmware = {"RAW_IMU", "SCALED_IMU2", "SCALED_PRESSURE", "SYS_STATUS", "POWER_STATUS", "MEMINFO", "MISSION_CURRENT",
                "GPS_RAW_INT", "NAV_CONTROLLER_OUTPUT", "POSITION_TARGET_GLOBAL_INT", "GLOBAL_POSITION_INT",
                "LOCAL_POSITION_NED", "SERVO_OUTPUT_RAW", "RC_CHANNELS", "ATTITUDE", "AHRS2", "VFR_HUD", "AHRS", "WIND",
                "SYSTEM_TIME", "BATTERY_STATUS", "EKF_STATUS_REPORT", "VIBRATION"}
    assert firmware <= set(got), sorted(firmware - set(got))
    imu = got["RAW_IMU"][-1]
    assert (abs(imu.xacc), abs(imu.yacc), imu.zacc) == (0, 0, -1000) and imu.xgyro == 0  # level, at rest: -1 g
    assert got["SCALED_PRESSURE"][-1].press_abs == pytest.approx(1013.25 * (1 - 2.25577e-5 * 400.0) ** 5.25588, abs=0.01)  # 400 m
    assert got["SERVO_OUTPUT_RAW"][-1].servo1_raw == 1000 and got["RC_CHANNELS"][-1].chancount == 0  # disarmed, no RC
