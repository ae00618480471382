"""A simulated quadrotor served as a MAVLink 2 vehicle, flown by a pymavlink client over UDP on 127.0.0.1.

    client (pymavlink, UDP) <-> 127.0.0.1:port <-> SimVehicleEndpoint <-> QuadrotorBank (cascaded PID, 400 Hz)

The vehicle runs in a thread paced at 4x real time; the test plays the ground station.
"""

import math
import time

import numpy as np
import pytest
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import GeoOrigin, enu_to_ned, heading_to_yaw, ned_to_enu, yaw_to_heading
from cosim.mavlink.personality import ARDUPILOT, PX4
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank
from tests.cosim.mavlink.ground_station import SPEED


def enter_offboard(gcs, setpoint) -> None:
    """Stream a few setpoints, then ask for offboard. A busy machine can stall the stream past PX4's
    COM_OF_LOSS_T (1 s, 0.25 s here), which PX4 rightly refuses: stream and ask again, up to three times."""
    for _ in range(3):
        for _ in range(5):
            gcs.send(setpoint)
            gcs.pump(0.05)
        if gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 6, 0).result == mav.MAV_RESULT_ACCEPTED:
            return
    raise AssertionError(f"offboard refused three times: {gcs.latest['STATUSTEXT'].text}")


def test_frames_round_trip():
    assert ned_to_enu(*enu_to_ned(1.0, 2.0, 3.0)) == (1.0, 2.0, 3.0)
    assert enu_to_ned(1.0, 2.0, 3.0) == (2.0, 1.0, -3.0)
    assert heading_to_yaw(0.0) == pytest.approx(math.pi / 2)  # east
    assert yaw_to_heading(heading_to_yaw(0.3)) == pytest.approx(0.3)
    o = GeoOrigin(47.0, 8.0, 400.0)
    assert o.from_geodetic(*o.to_geodetic(120.0, -45.0, 7.0)) == pytest.approx((120.0, -45.0, 7.0))


def test_heartbeat_identifies_a_px4_quadrotor_and_health_is_reported(vehicle):
    _, _, gcs = vehicle
    hb = gcs.wait("HEARTBEAT")
    assert (hb.type, hb.autopilot) == (mav.MAV_TYPE_QUADROTOR, mav.MAV_AUTOPILOT_PX4)
    assert not hb.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED
    status = gcs.wait("SYS_STATUS")
    assert status.onboard_control_sensors_health & mav.MAV_SYS_STATUS_PREARM_CHECK
    gcs.wait("HOME_POSITION")
    state = gcs.wait("EXTENDED_SYS_STATE")
    assert state.landed_state == mav.MAV_LANDED_STATE_ON_GROUND
    gcs.send(mav.MAVLink_mission_request_list_message(1, 1, mav.MAV_MISSION_TYPE_FENCE))
    assert gcs.wait("MISSION_COUNT").count == 0
    ack = gcs.command(mav.MAV_CMD_REQUEST_MESSAGE, mav.MAVLINK_MSG_ID_AUTOPILOT_VERSION)
    assert ack.result == mav.MAV_RESULT_ACCEPTED
    assert gcs.wait("AUTOPILOT_VERSION").capabilities & mav.MAV_PROTOCOL_CAPABILITY_MAVLINK2


def test_params_list_and_set(vehicle):
    _, _, gcs = vehicle
    gcs.wait("HEARTBEAT")
    gcs.send(mav.MAVLink_param_set_message(1, 1, b"MIS_TAKEOFF_ALT", 4.5, mav.MAV_PARAM_TYPE_REAL32))
    v = gcs.wait("PARAM_VALUE", lambda m: m.param_id == "MIS_TAKEOFF_ALT")
    assert v.param_value == pytest.approx(4.5)
    # a value outside PX4's range is refused with the range and answered with the unchanged value (PX4's
    # default); a parameter nothing here would use is read-only, refused the same way; an unknown one
    # is refused with no value to answer
    gcs.send(mav.MAVLink_param_set_message(1, 1, b"MPC_XY_VEL_MAX", 25.0, mav.MAV_PARAM_TYPE_REAL32))
    gcs.wait("STATUSTEXT", lambda m: m.text == "MPC_XY_VEL_MAX: expected 0..20 m/s, got 25")
    assert gcs.wait("PARAM_VALUE", lambda m: m.param_id == "MPC_XY_VEL_MAX").param_value == 12.0
    gcs.send(mav.MAVLink_param_set_message(1, 1, b"SYSID_THISMAV", 7.0, mav.MAV_PARAM_TYPE_REAL32))
    gcs.wait("STATUSTEXT", lambda m: m.text == "SYSID_THISMAV is read-only here")
    assert gcs.wait("PARAM_VALUE", lambda m: m.param_id == "SYSID_THISMAV").param_value == 1.0
    gcs.send(mav.MAVLink_param_set_message(1, 1, b"NO_SUCH_PARAM", 1.0, mav.MAV_PARAM_TYPE_REAL32))
    gcs.wait("STATUSTEXT", lambda m: m.text == "NO_SUCH_PARAM: no such parameter")
    gcs.send(mav.MAVLink_param_request_list_message(1, 1))
    names = set()
    end = time.monotonic() + 3
    while time.monotonic() < end and len(names) < v.param_count:
        names |= {m.param_id for m in gcs.pump(0.1) if m.get_type() == "PARAM_VALUE"}
    assert "SYSID_THISMAV" in names and len(names) == v.param_count


def test_px4_arm_takeoff_offboard_velocity_position_and_land(vehicle):
    bank, endpoint, gcs = vehicle
    gcs.wait("HEARTBEAT")
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.wait("HEARTBEAT", lambda m: m.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED)
    # PX4: takeoff altitude is AMSL (origin 400 m + 5 m)
    assert gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, 405.0).result == mav.MAV_RESULT_ACCEPTED
    gcs.wait("LOCAL_POSITION_NED", lambda m: abs(m.z + 5.0) < 0.1, timeout=10)
    # offboard needs setpoints streaming first: a switch without them is refused
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 6, 0).result == mav.MAV_RESULT_TEMPORARILY_REJECTED
    vel = lambda vn, ve: mav.MAVLink_set_position_target_local_ned_message(  # noqa: E731
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1100_0111, 0, 0, 0, vn, ve, 0, 0, 0, 0, 0, 0)

    def fly_north() -> bool:
        """Whether the vehicle, in offboard, flew north at the commanded speed while the stream lasted."""
        enter_offboard(gcs, vel(0.0, 0.0))
        end, flew = time.monotonic() + 2.5 / SPEED * 4, False  # north at 1 m/s for about 2.5 simulated s
        while time.monotonic() < end:
            gcs.send(vel(1.0, 0.0))
            flew |= any(m.get_type() == "LOCAL_POSITION_NED" and m.x > 1.0 and m.vx > 0.5 and abs(m.y) < 0.2
                        for m in gcs.pump(0.05))
        return flew

    # PX4 falls back to POSCTL 1 s (0.25 s here) after the last setpoint, and back to OFFBOARD when
    # they stream again: a stall of this test's own stream costs time, so the test tries up to three times
    assert fly_north() or fly_north() or fly_north()
    target = mav.MAVLink_set_position_target_local_ned_message(
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000, 3.0, 2.0, -4.0, 0, 0, 0, 0, 0, 0, 0, 0)
    start = time.monotonic()
    give_up = start + 60.0 / SPEED
    while time.monotonic() < min(start + 12.0 / SPEED, give_up):
        if endpoint.state.mode != "offboard":  # this test's stream stalled past 0.25 s on a busy machine: back into offboard
            gcs.send(mav.MAVLink_command_long_message(1, 1, mav.MAV_CMD_DO_SET_MODE, 0, 1, 6, 0, 0, 0, 0, 0))
            start = time.monotonic()  # and 12 simulated s from there
        gcs.send(target)
        gcs.pump(0.05)
    n, e, d = enu_to_ned(*bank.pos[0])
    assert math.dist((n, e, d), (3.0, 2.0, -4.0)) < 0.3
    assert gcs.command(mav.MAV_CMD_NAV_LAND).result == mav.MAV_RESULT_ACCEPTED
    gcs.wait("HEARTBEAT", lambda m: not m.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED, timeout=15)
    assert bank.pos[0, 2] == 0.0 and not endpoint.state.armed
    assert math.dist(bank.pos[0, :2], (2.0, 3.0)) < 0.3  # landed where it was (ENU x = east = 2, y = north = 3)


def test_lost_setpoint_stream_falls_back_to_position_mode_until_setpoints_return(vehicle):
    """PX4's offboard loss (COM_OF_LOSS_T 1 s, COM_OBL_RC_ACT position mode): the vehicle holds in
    POSCTL, announces it, and flies OFFBOARD again when setpoints stream again, as PX4's mode fallback
    clears with its condition; a mode the user picks meanwhile stays."""
    bank, endpoint, gcs = vehicle
    gcs.wait("HEARTBEAT")
    gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1)
    gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, 403.0)
    gcs.wait("LOCAL_POSITION_NED", lambda m: abs(m.z + 3.0) < 0.1, timeout=10)
    vel = mav.MAVLink_set_position_target_local_ned_message(
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1100_0111, 0, 0, 0, 0.0, 2.0, 0, 0, 0, 0, 0, 0)

    def fly_east() -> bool:
        end, east = time.monotonic() + 2.0 / SPEED * 4, False
        while time.monotonic() < end:
            gcs.send(vel)
            gcs.pump(0.05)
            east = east or (endpoint.state.mode == "offboard" and bank.vel[0, 0] > 1.0)  # at any time during the stream
        return east

    enter_offboard(gcs, vel)
    assert fly_east()
    gcs.pump(3.0 / SPEED)  # the stream stops (the ground station still beats): after 1 s the vehicle holds
    assert endpoint.state.mode == "posctl" and "offboard signal lost" in gcs.latest["STATUSTEXT"].text
    assert gcs.wait("HEARTBEAT", lambda m: m.custom_mode == PX4.modes["posctl"])
    held = bank.pos[0].copy()
    gcs.pump(2.0 / SPEED)
    assert np.linalg.norm(bank.vel[0]) < 0.1 and np.linalg.norm(bank.pos[0] - held) < 0.5
    assert fly_east() and bank.pos[0, 0] > held[0] + 1.0  # setpoints again: OFFBOARD, east, with no mode command
    gcs.pump(3.0 / SPEED)
    assert endpoint.state.mode == "posctl"
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 3).result == mav.MAV_RESULT_ACCEPTED  # AUTO.LOITER (hold)
    for _ in range(10):  # the user chose HOLD during the fallback: setpoints no longer take it back
        gcs.send(vel)
        gcs.pump(0.05)
    assert endpoint.state.mode == "hold"


@pytest.mark.parametrize("vehicle", [ARDUPILOT], indirect=True)
def test_ardupilot_guided_takeoff_is_relative(vehicle):
    bank, _, gcs = vehicle
    hb = gcs.wait("HEARTBEAT")
    assert hb.autopilot == mav.MAV_AUTOPILOT_ARDUPILOTMEGA
    gcs.send(mav.MAVLink_request_data_stream_message(1, 1, mav.MAV_DATA_STREAM_POSITION, 10, 1))  # as MAVProxy asks
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4).result == mav.MAV_RESULT_ACCEPTED  # GUIDED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, 5.0).result == mav.MAV_RESULT_ACCEPTED
    m = gcs.wait("GLOBAL_POSITION_INT", lambda m: abs(m.relative_alt - 5000) < 100, timeout=10)
    assert m.alt == pytest.approx(405_000, abs=100)
    assert bank.pos[0, 2] == pytest.approx(5.0, abs=0.15)


def test_garbage_and_foreign_traffic_are_counted_not_fatal(vehicle):
    _, endpoint, gcs = vehicle
    gcs.wait("HEARTBEAT")
    gcs.sock.sendto(b"\xfd\x09garbage-that-is-not-mavlink\x00\x01", gcs.addr)
    gcs.send(mav.MAVLink_command_long_message(42, 1, mav.MAV_CMD_COMPONENT_ARM_DISARM, 0, 1, 0, 0, 0, 0, 0, 0))
    gcs.wait("HEARTBEAT")
    time.sleep(0.2)
    assert endpoint.stats.foreign >= 1 and endpoint.stats.malformed >= 1
    assert not endpoint.state.armed


def test_non_finite_fields_are_refused_and_the_vehicle_flies_on(vehicle):
    """One datagram with a NaN used to raise in the endpoint and stop the vehicle (issue 17). Now:
    COMMAND_ACK DENIED with a STATUSTEXT naming the parameter, setpoints ignored with a
    STATUSTEXT, and the vehicle still arms, takes off and reports finite positions."""
    bank, _endpoint, gcs = vehicle
    gcs.wait("HEARTBEAT")
    nan, inf = math.nan, math.inf
    for cmd, params in ((mav.MAV_CMD_DO_SET_MODE, (1, nan, 0)), (mav.MAV_CMD_DO_REPOSITION, (-1, 0, 0, nan, inf, 8.0, 410.0)),
                        (mav.MAV_CMD_COMPONENT_ARM_DISARM, (nan,)), (mav.MAV_CMD_NAV_TAKEOFF, (0, 0, 0, nan, nan, nan, inf)),
                        (mav.MAV_CMD_REQUEST_MESSAGE, (nan,))):
        assert gcs.command(cmd, *params).result == mav.MAV_RESULT_DENIED
        assert "must be a finite number" in gcs.latest["STATUSTEXT"].text
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, nan, nan, nan, 402.0).result == mav.MAV_RESULT_ACCEPTED
    gcs.wait("LOCAL_POSITION_NED", lambda m: abs(m.z + 2.0) < 0.1, timeout=10)
    hold = mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000,
                                                             0.0, 0.0, -2.0, 0, 0, 0, 0, 0, 0, 0, 0)
    enter_offboard(gcs, hold)  # PX4 enters offboard only with setpoints streaming
    gcs.send(mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000,
                                                                nan, 0.0, -2.0, 0, 0, 0, 0, 0, 0, 0, 0))
    gcs.wait("STATUSTEXT", lambda m: "non-finite" in m.text)
    for yaw in (inf, -inf):  # the yaw is used (bit 10 clear): an infinite one is named, not flown
        gcs.send(mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1011_1111_1000,
                                                                    0.0, 0.0, -2.0, 0, 0, 0, 0, 0, 0, yaw, 0))
        gcs.wait("STATUSTEXT", lambda m, yaw=yaw: m.text == f"setpoint refused: yaw {yaw} is not an angle")
    gcs.send(mav.MAVLink_set_position_target_global_int_message(0, 1, 1, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
                                                                 0b0000_1011_1111_1000, 0, 0, 2.0, 0, 0, 0, 0, 0, 0, inf, 0))
    gcs.wait("STATUSTEXT", lambda m: m.text == "setpoint refused: yaw inf is not an angle")
    gcs.send(mav.MAVLink_param_set_message(1, 1, b"MIS_TAKEOFF_ALT", nan, mav.MAV_PARAM_TYPE_REAL32))
    gcs.wait("STATUSTEXT", lambda m: m.text == "MIS_TAKEOFF_ALT: expected 0..1000 m, got nan")
    # NaN in a reposition is PX4's "keep": the current position here, a new altitude (AMSL 403 m: 3 m up)
    assert gcs.command(mav.MAV_CMD_DO_REPOSITION, -1, mav.MAV_DO_REPOSITION_FLAGS_CHANGE_MODE, 0, nan, nan, nan,
                       403.0).result == mav.MAV_RESULT_ACCEPTED  # as MAVSDK sends it: into Hold, and up
    gcs.wait("LOCAL_POSITION_NED", lambda m: abs(m.z + 3.0) < 0.1, timeout=10)
    assert np.all(np.isfinite(bank.pos)) and np.hypot(*bank.pos[0, :2]) < 0.3
    assert gcs.wait("HEARTBEAT").base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED


def test_a_bounded_fuzz_of_handled_messages_never_stops_the_vehicle(vehicle):
    """300 messages of every kind the vehicle handles, with random fields (NaN, infinities, huge and
    negative numbers, out-of-range indices): afterwards it still answers a command."""
    bank, _endpoint, gcs = vehicle
    gcs.wait("HEARTBEAT")
    rng = np.random.default_rng(17)
    values = [math.nan, math.inf, -math.inf, 1e30, -1e30, 0.0, -1.0, 3.0]

    def v():
        return float(values[rng.integers(len(values))])

    makers = [
        lambda: mav.MAVLink_command_long_message(1, 1, int(rng.choice([400, 176, 192, 22, 21, 511, 512, 520])), 0,
                                                 *[v() for _ in range(7)]),
        lambda: mav.MAVLink_command_int_message(1, 1, 6, int(rng.choice([192, 22, 176])), 0, 0, v(), v(), v(), v(),
                                                int(rng.integers(-2**31, 2**31 - 1)), int(rng.integers(-2**31, 2**31 - 1)), v()),
        lambda: mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, int(rng.integers(0, 12)), int(rng.integers(0, 4096)),
                                                                  *[v() for _ in range(11)]),
        lambda: mav.MAVLink_set_position_target_global_int_message(0, 1, 1, 6, int(rng.integers(0, 4096)),
                                                                   int(rng.integers(-2**31, 2**31 - 1)),
                                                                   int(rng.integers(-2**31, 2**31 - 1)),
                                                                   *[v() for _ in range(9)]),
        lambda: mav.MAVLink_param_set_message(1, 1, b"MPC_XY_VEL_MAX", v(), 9),
        lambda: mav.MAVLink_param_request_read_message(1, 1, b"X", int(rng.integers(-32768, 32767))),
        lambda: mav.MAVLink_set_mode_message(1, int(rng.integers(0, 255)), int(rng.integers(0, 2**32 - 1))),
    ]
    for _ in range(300):
        gcs.send(makers[int(rng.integers(len(makers)))]())
    quiet = time.monotonic() + 20.0  # a loaded machine answers the fuzz late: its acks must not pass for ours
    while any(m.get_type() == "COMMAND_ACK" for m in gcs.pump(0.5)) and time.monotonic() < quiet:
        pass
    ack = gcs.command(mav.MAV_CMD_REQUEST_MESSAGE, mav.MAVLINK_MSG_ID_AUTOPILOT_VERSION)
    assert ack.result == mav.MAV_RESULT_ACCEPTED
    assert np.all(np.isfinite(bank.pos))


@pytest.mark.parametrize("vehicle", [ARDUPILOT], indirect=True)
def test_ardupilot_streams_what_is_asked_for_and_keeps_time(vehicle):
    """As the firmware does at connection: heartbeats and TIMESYNC only, until REQUEST_DATA_STREAM
    (groups, ArduPilot's) or SET_MESSAGE_INTERVAL ask; a TIMESYNC request is answered."""
    _, _, gcs = vehicle
    gcs.wait("HEARTBEAT")
    assert {m.get_type() for m in gcs.pump(3.0 / SPEED)} <= {"HEARTBEAT", "TIMESYNC"}
    gcs.send(mav.MAVLink_request_data_stream_message(1, 1, mav.MAV_DATA_STREAM_EXTRA1, 5, 1))  # ATTITUDE at 5 Hz
    gcs.pump(1.0 / SPEED)
    got, boot_ms, end = [], [], time.monotonic() + 12.0 / SPEED  # 12 of them; a busy machine may slow the vehicle
    while len(boot_ms) < 12 and time.monotonic() < end:
        msgs = gcs.pump(0.25 / SPEED)
        got += [m.get_type() for m in msgs]
        boot_ms += [m.time_boot_ms for m in msgs if m.get_type() == "ATTITUDE"]
    # 5 Hz by the vehicle's own clock (a busy test machine may deliver a late second's worth in a burst)
    assert len(boot_ms) >= 12 and 4.5 <= (len(boot_ms) - 1) / ((boot_ms[-1] - boot_ms[0]) / 1000.0) <= 5.5, boot_ms
    assert "GLOBAL_POSITION_INT" not in got
    gcs.send(mav.MAVLink_request_data_stream_message(1, 1, mav.MAV_DATA_STREAM_ALL, 2, 0))  # everything off
    gcs.pump(1.0 / SPEED)
    assert "ATTITUDE" not in {m.get_type() for m in gcs.pump(2.0 / SPEED)}
    gcs.send(mav.MAVLink_timesync_message(0, 123_456))
    sync = gcs.wait("TIMESYNC", lambda m: m.ts1 == 123_456)
    assert sync.tc1 > 0


def test_px4_streams_unasked_and_ignores_data_stream_requests(vehicle):
    _, _, gcs = vehicle
    gcs.wait("GLOBAL_POSITION_INT")
    gcs.send(mav.MAVLink_request_data_stream_message(1, 1, mav.MAV_DATA_STREAM_ALL, 0, 0))  # PX4 dropped this message
    gcs.pump(1.0 / SPEED)
    boot_ms, end = [], time.monotonic() + 12.0 / SPEED  # 20 of them; a busy machine may slow the vehicle
    while len(boot_ms) < 20 and time.monotonic() < end:
        boot_ms += [m.time_boot_ms for m in gcs.pump(0.25 / SPEED) if m.get_type() == "GLOBAL_POSITION_INT"]
    # still 10 Hz, by the vehicle's own clock (a busy test machine may deliver a late second in a burst)
    assert len(boot_ms) >= 20 and 9.0 <= (len(boot_ms) - 1) / ((boot_ms[-1] - boot_ms[0]) / 1000.0) <= 11.0, boot_ms


def _clock_at(gcs, kind: str, cond, timeout: float) -> tuple:
    """The first `kind` message meeting cond, and the vehicle's clock when it was sent: the time_boot_ms
    of the last ATTITUDE received before it (one burst may also hold later ones)."""
    last = gcs.latest.get("ATTITUDE")  # received before this call
    clock, end = (last.time_boot_ms if last is not None else None), time.monotonic() + timeout
    while time.monotonic() < end:
        for m in gcs.pump(0.05):
            if m.get_type() == "ATTITUDE":
                clock = m.time_boot_ms
            elif m.get_type() == kind and cond(m):
                return m, clock
    raise AssertionError(f"no {kind} within {timeout} s (latest: {gcs.latest.get(kind)})")


@pytest.mark.parametrize("vehicle", [PX4, ARDUPILOT], indirect=True, ids=["px4", "ardupilot"])
def test_an_armed_copter_that_does_not_take_off_is_disarmed(vehicle):
    """As the firmware does (PX4's COM_DISARM_PRFLT, ArduCopter's DISARM_DELAY, 10 s): armed and
    left on the ground, a copter disarms and says so."""
    _, endpoint, gcs = vehicle
    gcs.wait("HEARTBEAT")
    gcs.send(mav.MAVLink_request_data_stream_message(1, 1, mav.MAV_DATA_STREAM_EXTRA1, 10, 1))  # ATTITUDE: its clock
    gcs.wait("ATTITUDE")
    gcs.send(mav.MAVLink_command_long_message(1, 1, mav.MAV_CMD_COMPONENT_ARM_DISARM, 0, 1, 0, 0, 0, 0, 0, 0))
    ack, t0 = _clock_at(gcs, "COMMAND_ACK", lambda m: m.command == mav.MAV_CMD_COMPONENT_ARM_DISARM, 10.0)
    assert ack.result == mav.MAV_RESULT_ACCEPTED
    _, t1 = _clock_at(gcs, "HEARTBEAT", lambda m: not m.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED, 20 / SPEED)
    # 10 s by the vehicle's own clock (the ATTITUDEs just before the ack and the disarmed heartbeat),
    # not the test's: a busy machine may deliver the vehicle's messages late and in bursts
    assert 9.0 < (t1 - t0) / 1000.0 < 12.0
    said = {"px4": "Disarmed by auto preflight disarming", "ardupilot": "Disarming motors"}[endpoint.state.personality.name]
    assert gcs.latest["STATUSTEXT"].text == said and not endpoint.state.armed  # in the firmware's words


def test_a_vehicle_that_fails_in_flight_disarms_and_refuses_to_fly(vehicle):
    """A crash (here: its motors fail) disarms it, as ArduPilot's crash check does; it then refuses
    to arm or take off with the reason, rather than acknowledging what it cannot do."""
    bank, _, gcs = vehicle
    gcs.wait("HEARTBEAT")
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    bank.alive[0] = False
    refused = vehicle[1].state.personality.action_refused  # FAILED (ArduCopter) or TEMPORARILY_REJECTED (PX4)
    gcs.wait("HEARTBEAT", lambda m: not m.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED, timeout=5 / SPEED)
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == refused
    assert gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, 405.0).result == refused
    assert "not armed" in gcs.latest["STATUSTEXT"].text


def test_ardupilot_guided_targets_keep_a_landed_copter_down_as_the_firmware_does():
    """ArduCopter in GUIDED: a position target for a copter on the ground keeps it there and replaces
    a take-off that has not left the ground; with no more targets, it disarms 10 s later. This is
    what real firmware did to our old take-off (setpoints streaming before and during NAV_TAKEOFF);
    cosim.mavlink.client.launch now sends NAV_TAKEOFF alone and streams only once the copter has climbed.
    Messages are handed to the vehicle directly and its clock stepped here, so the order is exact."""
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
    endpoint = SimVehicleEndpoint(QuadBody(bank, 0), 0, ARDUPILOT, origin=GeoOrigin(47.0, 8.0, 400.0))
    target = mav.MAVLink_set_position_target_local_ned_message(
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000, 0.0, 0.0, -3.0, 0, 0, 0, 0, 0, 0, 0, 0)
    try:
        for msg in (mav.MAVLink_command_long_message(1, 1, mav.MAV_CMD_DO_SET_MODE, 0, 1, 4, 0, 0, 0, 0, 0),
                    mav.MAVLink_command_long_message(1, 1, mav.MAV_CMD_COMPONENT_ARM_DISARM, 0, 1, 0, 0, 0, 0, 0, 0),
                    target,
                    mav.MAVLink_command_long_message(1, 1, mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, 0, 3.0),
                    target):  # the stream goes on: the take-off is replaced before the copter leaves the ground
            endpoint.handle(msg)
        assert endpoint.state.mode == "guided" and endpoint.state.armed
        for k in range(4400):  # 11 s at 400 Hz
            bank.step()
            if k % 8 == 0:
                endpoint.state.now = bank.t
                endpoint.autopilot.supervise()
        assert bank.pos[0, 2] < 0.01 and not endpoint.state.armed  # it never left the ground, and disarmed
    finally:
        endpoint.close()
