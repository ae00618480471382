"""Each parameter a personality lists acts, under the autopilot's own name and unit: PX4's (from
its source; no PX4 firmware flights are recorded yet) on a served vehicle stepped unpaced, and the
ranges the firmware accepts."""

import math

import numpy as np
import pytest
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.flight_params import ARDUPILOT_PARAMS, PX4_PARAMS, ardupilot_rules, px4_rules
from cosim.mavlink.personality import ARDUPILOT, PX4
from tests.cosim.mavlink.serve.test_failsafe import Bench
from tests.cosim.mavlink.serve.test_reposition_and_offboard_loss import stream, take_off


def set_param(b: Bench, name: str, value: float) -> None:
    b.send(mav.MAVLink_param_set_message(1, 1, name.encode(), value, mav.MAV_PARAM_TYPE_REAL32))
    b.run(0.1)
    assert b.ep.autopilot.params[name] == pytest.approx(value)  # PARAM_SET carries a float32


def position(north: float, up: float):
    return mav.MAVLink_set_position_target_local_ned_message(
        0, 1, 1, mav.MAV_FRAME_LOCAL_NED, 0b0000_1111_1111_1000, north, 0.0, -up, 0, 0, 0, 0, 0, 0, 0, 0)


def fly_offboard(params: dict[str, float], north: float, up: float, seconds: float) -> np.ndarray:
    """Take off to 3 m, set `params`, stream a position target in OFFBOARD: the velocities flown."""
    b = Bench(PX4)
    try:
        take_off(b)
        for name, value in params.items():
            set_param(b, name, value)
        stream(b, position(0.0, 3.0), 0.5)
        assert b.mode("offboard") == mav.MAV_RESULT_ACCEPTED
        speeds = []
        for _ in range(round(seconds / 0.1)):
            b.send(position(north, up))
            b.run(0.1)
            speeds.append(b.bank.vel[0].copy())
        return np.array(speeds)
    finally:
        b.close()


def test_px4_offboard_speed_and_climb_limits_act():
    fast = fly_offboard({}, 30.0, 3.0, 8.0)
    slow = fly_offboard({"MPC_XY_VEL_MAX": 3.0}, 30.0, 3.0, 8.0)
    assert np.hypot(fast[:, 0], fast[:, 1]).max() > 6.0
    assert np.hypot(slow[:, 0], slow[:, 1]).max() == pytest.approx(3.0, abs=0.3)
    climb = fly_offboard({"MPC_Z_VEL_MAX_UP": 1.0}, 0.0, 12.0, 6.0)
    assert climb[:, 2].max() == pytest.approx(1.0, abs=0.1)


@pytest.mark.parametrize("land_speed", [0.7, 1.2])
def test_px4_lands_at_mpc_land_speed_below_mpc_land_alt2(land_speed):
    b = Bench(PX4)
    try:
        set_param(b, "MPC_LAND_SPEED", land_speed)
        b.run(1.0)
        assert b.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1) == mav.MAV_RESULT_ACCEPTED
        assert b.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, 408.0) == mav.MAV_RESULT_ACCEPTED
        b.run(12.0)
        assert b.bank.pos[0, 2] == pytest.approx(8.0, abs=0.15)
        assert b.mode("land") == mav.MAV_RESULT_ACCEPTED
        sinks = []
        while b.ep.state.armed and b.bank.t < 60.0:
            b.run(0.1)
            if 1.0 < b.bank.pos[0, 2] < 4.0:
                sinks.append(-b.bank.vel[0, 2])
        assert np.median(sinks) == pytest.approx(land_speed, abs=0.05) and not b.ep.state.armed
    finally:
        b.close()


def test_px4_take_off_and_return_altitudes_act():
    b = Bench(PX4)
    try:
        set_param(b, "MIS_TAKEOFF_ALT", 4.0)
        set_param(b, "RTL_RETURN_ALT", 7.0)
        b.run(1.0)
        assert b.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1) == mav.MAV_RESULT_ACCEPTED
        assert b.mode("takeoff") == mav.MAV_RESULT_ACCEPTED
        b.run(10.0)
        assert b.bank.pos[0, 2] == pytest.approx(4.0, abs=0.15)
        assert b.mode("rtl") == mav.MAV_RESULT_ACCEPTED
        top = 0.0
        while b.ep.state.armed and b.bank.t < 60.0:
            b.run(0.1)
            top = max(top, float(b.bank.pos[0, 2]))
        assert top == pytest.approx(7.0, abs=0.2) and not b.ep.state.armed
    finally:
        b.close()


@pytest.mark.parametrize("specs, rules", [(ARDUPILOT_PARAMS, ardupilot_rules), (PX4_PARAMS, px4_rules)])
def test_every_listed_parameter_changes_the_rules(specs, rules):
    """No parameter is listed settable and then ignored: moving any one within its range changes
    what the vehicle flies by (the rules), except ArduCopter's PILOT_TKOFF_ALT below 1 m."""
    defaults = {s.name: s.default for s in specs}
    base = rules(defaults)
    for spec in specs:
        other = spec.high if spec.default != spec.high else spec.low
        assert rules({**defaults, spec.name: other}) != base, spec.name


@pytest.mark.parametrize("personality, name, bad, message", [
    (ARDUPILOT, "WPNAV_SPEED", 5.0, "WPNAV_SPEED: expected 10..2000 cm/s, got 5"),
    (ARDUPILOT, "LAND_SPEED", math.inf, "LAND_SPEED: expected 30..200 cm/s, got inf"),
    (PX4, "MPC_LAND_SPEED", 0.5, "MPC_LAND_SPEED: expected 0.6..10 m/s, got 0.5"),
    (PX4, "COM_DISARM_LAND", -1.0, "COM_DISARM_LAND: expected 0..20 s, got -1"),
])
def test_values_outside_the_firmware_range_are_refused_with_it(personality, name, bad, message):
    b = Bench(personality)
    try:
        before = b.ep.autopilot.params[name]
        b.send(mav.MAVLink_param_set_message(1, 1, name.encode(), bad, mav.MAV_PARAM_TYPE_REAL32))
        b.run(0.1)
        assert message in b.texts and b.ep.autopilot.params[name] == before
    finally:
        b.close()
