"""What the autopilots' sources do with DO_REPOSITION's change-mode flag and with a lost OFFBOARD
setpoint stream, on a served vehicle stepped unpaced with a pymavlink ground station on 127.0.0.1."""

import math

import pytest
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.personality import ARDUPILOT, PX4
from tests.cosim.mavlink.serve.test_failsafe import Bench

NORTH_DEG = 1.0 / 111_194.9
CHANGE_MODE = mav.MAV_DO_REPOSITION_FLAGS_CHANGE_MODE


@pytest.fixture
def px4():
    b = Bench(PX4)
    yield b
    b.close()


def velocity_north(vn: float):
    return mav.MAVLink_set_position_target_local_ned_message(
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1100_0111, 0, 0, 0, vn, 0.0, 0, 0, 0, 0, 0, 0)


def stream(b: Bench, msg, seconds: float) -> None:
    """`msg` at 10 Hz (simulated) for `seconds`."""
    for _ in range(round(seconds / 0.1)):
        b.send(msg)
        b.run(0.1)


def take_off(b: Bench, up: float = 3.0) -> None:
    b.run(1.0)
    assert b.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1) == mav.MAV_RESULT_ACCEPTED
    assert b.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, 400.0 + up) == mav.MAV_RESULT_ACCEPTED
    b.run(6.0)
    assert b.ep.state.mode == "hold" and b.bank.pos[0, 2] == pytest.approx(up, abs=0.1)


def into_offboard(b: Bench, setpoint) -> None:
    stream(b, setpoint, 0.5)
    assert b.mode("offboard") == mav.MAV_RESULT_ACCEPTED


def test_px4_falls_back_to_position_mode_after_com_of_loss_t_and_returns_when_setpoints_do(px4):
    take_off(px4)
    into_offboard(px4, velocity_north(1.0))
    stream(px4, velocity_north(1.0), 2.0)
    assert px4.ep.state.mode == "offboard" and px4.bank.vel[0, 1] == pytest.approx(1.0, abs=0.1)
    px4.run(0.9)  # silent for less than COM_OF_LOSS_T (1 s): still OFFBOARD
    assert px4.ep.state.mode == "offboard"
    px4.run(0.3)
    assert px4.ep.state.mode == "posctl" and "Failsafe: offboard signal lost, Position mode" in px4.texts
    px4.run(2.0)
    held = px4.bank.pos[0].copy()
    px4.run(1.0)
    assert math.dist(px4.bank.pos[0], held) < 0.05  # holding
    stream(px4, velocity_north(1.0), 2.0)  # the signal is back: OFFBOARD again, with no mode command
    assert px4.ep.state.mode == "offboard" and px4.bank.pos[0, 1] > held[1] + 1.0


def test_px4_a_mode_chosen_during_the_fallback_stays(px4):
    take_off(px4)
    into_offboard(px4, velocity_north(1.0))
    px4.run(1.5)
    assert px4.ep.state.mode == "posctl"
    assert px4.mode("hold") == mav.MAV_RESULT_ACCEPTED
    stream(px4, velocity_north(1.0), 1.0)
    assert px4.ep.state.mode == "hold" and abs(px4.bank.vel[0, 1]) < 0.1


def reposition(b: Bench, north: float, flags: int, alt: float = math.nan) -> int:
    return b.command(mav.MAV_CMD_DO_REPOSITION, -1, flags, 0, math.nan, 47.0 + north * NORTH_DEG, 8.0, alt)


def test_px4_a_reposition_during_the_take_off_is_flown_when_it_ends(px4):
    """Take-off ends in Loiter (Hold), which starts with the navigator's stored reposition."""
    px4.run(1.0)
    assert px4.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1) == mav.MAV_RESULT_ACCEPTED
    assert px4.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, 403.0) == mav.MAV_RESULT_ACCEPTED
    px4.run(0.5)
    assert px4.ep.state.mode == "takeoff" and px4.bank.pos[0, 2] == 0.0  # COM_SPOOLUP_TIME (1 s) after arming first
    px4.run(1.0)
    assert px4.ep.state.mode == "takeoff" and 0.0 < px4.bank.pos[0, 2] < 2.5
    assert reposition(px4, 4.0, 0, alt=404.0) == mav.MAV_RESULT_ACCEPTED
    px4.run(0.5)
    assert px4.ep.state.mode == "takeoff" and abs(px4.bank.pos[0, 1]) < 0.1  # the climb first
    px4.run(10.0)
    assert px4.ep.state.mode == "hold" and math.dist(px4.bank.pos[0], (0.0, 4.0, 4.0)) < 0.3


def test_px4_reposition_without_the_flag_waits_for_hold_and_with_it_enters_hold(px4):
    take_off(px4)
    hover = mav.MAVLink_set_position_target_local_ned_message(
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000, 0.0, 0.0, -3.0, 0, 0, 0, 0, 0, 0, 0, 0)
    into_offboard(px4, hover)
    assert reposition(px4, 5.0, 0) == mav.MAV_RESULT_ACCEPTED  # PX4 keeps it for Loiter
    stream(px4, hover, 3.0)
    assert px4.ep.state.mode == "offboard" and abs(px4.bank.pos[0, 1]) < 0.1  # OFFBOARD flies its setpoints, not it
    assert px4.mode("hold") == mav.MAV_RESULT_ACCEPTED  # Hold starts with the kept reposition
    px4.run(6.0)
    assert px4.bank.pos[0, 1] == pytest.approx(5.0, abs=0.5)  # the shaped path overshoots a little, as the firmware does
    into_offboard(px4, hover)
    assert reposition(px4, -2.0, CHANGE_MODE) == mav.MAV_RESULT_ACCEPTED  # the flag: Hold now, and there
    assert px4.ep.state.mode == "hold"
    px4.run(10.0)
    assert px4.bank.pos[0, 1] == pytest.approx(-2.0, abs=0.5)


def test_ardupilot_refuses_a_reposition_outside_guided_without_the_flag():
    b = Bench(ARDUPILOT)
    try:
        b.fly_out(east=0.0)
        assert b.mode("hold") == mav.MAV_RESULT_ACCEPTED  # LOITER
        assert reposition(b, 4.0, 0) == mav.MAV_RESULT_DENIED
        assert "Reposition: not in GUIDED (no change-mode flag)" in b.texts
        b.run(3.0)
        assert abs(b.bank.pos[0, 1]) < 0.1
        assert reposition(b, 4.0, CHANGE_MODE) == mav.MAV_RESULT_ACCEPTED
        assert b.ep.state.mode == "guided"
        b.run(6.0)
        assert b.bank.pos[0, 1] == pytest.approx(4.0, abs=0.3)
    finally:
        b.close()
