"""The parameters that shape how a served copter flies, under each autopilot's own names, units and
defaults (ArduCopter 4.7's AC_WPNav, AC_PosControl and Copter parameters; PX4's mc_pos_control,
navigator and commander YAML), and what they mean for the flight (`Rules`, SI units).

Each one acts: PARAM_SET changes the next manoeuvre as it does on the firmware. A value outside the
firmware's range is refused with the range."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from cosim.mavlink.serve.shaping import Limits

G = 9.80665
UNSHAPED_JERK = 1000.0
"""PX4 does not jerk-limit offboard setpoints; a jerk this high leaves them unshaped."""


@dataclass(frozen=True)
class ParamSpec:
    """One settable parameter: its default and the range the firmware accepts, in its own unit."""

    name: str
    default: float
    low: float
    high: float
    unit: str


@dataclass(frozen=True)
class Rules:
    """What the parameters mean for a flight (m, m/s, s).

    `limits` shape a guided (offboard) target's path; `auto` mission legs (at `auto.speed` until a
    DO_CHANGE_SPEED) and returns (at `rtl_speed`); `takeoff` a take-off's climb; `landing` a
    landing, which sinks at `land_speed_high` above `land_ramp_alt`, slowing to `land_speed` at
    `land_alt_low`. A return flies `rtl_alt` above home and waits `rtl_loiter_s` over it.
    `takeoff_alt` is a take-off's height when it names none; a take-off lifts `takeoff_delay_s`
    after its command and no sooner than `spoolup_s` after arming; `touchdown_disarm_s` runs from
    touchdown to the disarm. With `takeoff_item_flown`, a mission's take-off climbs where the vehicle
    stands and then flies to the item's latitude and longitude (PX4's Mission::handleTakeoff turns it
    into a waypoint); without, the item's position is not used (ArduCopter takes off where it is).
    With `zero_lat_lon_is_here`, an item at latitude and longitude 0 means where the vehicle is
    (ArduCopter lands there); without, it is 0 N 0 E (PX4 reads every item's coordinates as given)."""

    limits: Limits
    auto: Limits
    takeoff: Limits
    landing: Limits
    land_speed: float
    land_speed_high: float
    land_alt_low: float
    land_ramp_alt: float
    rtl_alt: float
    rtl_speed: float
    rtl_loiter_s: float
    takeoff_alt: float
    takeoff_delay_s: float
    spoolup_s: float
    touchdown_disarm_s: float
    takeoff_item_flown: bool = False
    zero_lat_lon_is_here: bool = True


ARDUPILOT_PARAMS = (
    ParamSpec("WPNAV_SPEED", 1000.0, 10.0, 2000.0, "cm/s"),
    ParamSpec("WPNAV_SPEED_UP", 250.0, 10.0, 1000.0, "cm/s"),
    ParamSpec("WPNAV_SPEED_DN", 150.0, 10.0, 500.0, "cm/s"),
    ParamSpec("WPNAV_ACCEL", 250.0, 50.0, 500.0, "cm/s/s"),
    ParamSpec("WPNAV_ACCEL_Z", 100.0, 50.0, 500.0, "cm/s/s"),
    ParamSpec("WPNAV_JERK", 1.0, 1.0, 20.0, "m/s/s/s"),
    ParamSpec("PSC_JERK_XY", 5.0, 1.0, 20.0, "m/s/s/s"),
    ParamSpec("PSC_JERK_Z", 5.0, 5.0, 50.0, "m/s/s/s"),
    ParamSpec("LAND_SPEED", 50.0, 30.0, 200.0, "cm/s"),
    ParamSpec("LAND_SPEED_HIGH", 0.0, 0.0, 500.0, "cm/s"),
    ParamSpec("LAND_ALT_LOW", 1000.0, 100.0, 10000.0, "cm"),
    ParamSpec("PILOT_TKOFF_ALT", 0.0, 0.0, 1000.0, "cm"),
    ParamSpec("RTL_ALT", 1500.0, 30.0, 300000.0, "cm"),
    ParamSpec("RTL_SPEED", 0.0, 0.0, 2000.0, "cm/s"),
    ParamSpec("RTL_LOIT_TIME", 5000.0, 0.0, 60000.0, "ms"),
    ParamSpec("MOT_SPOOL_TIME", 0.5, 0.05, 2.0, "s"),
    ParamSpec("TKOFF_SLEW_TIME", 2.0, 0.25, 5.0, "s"),
)
"""ArduCopter's: PILOT_TKOFF_ALT is the height of a take-off from the pilot's sticks (no RC is
simulated, so it acts only there, as on the firmware, where GUIDED and AUTO take-offs name theirs)."""

PX4_PARAMS = (
    ParamSpec("MPC_XY_VEL_MAX", 12.0, 0.0, 20.0, "m/s"),
    ParamSpec("MPC_XY_CRUISE", 5.0, 3.0, 20.0, "m/s"),
    ParamSpec("MPC_Z_VEL_MAX_UP", 3.0, 0.5, 8.0, "m/s"),
    ParamSpec("MPC_Z_VEL_MAX_DN", 1.5, 0.5, 4.0, "m/s"),
    ParamSpec("MPC_Z_V_AUTO_UP", 3.0, 0.5, 8.0, "m/s"),
    ParamSpec("MPC_Z_V_AUTO_DN", 1.5, 0.5, 4.0, "m/s"),
    ParamSpec("MPC_TILTMAX_AIR", 45.0, 20.0, 89.0, "deg"),
    ParamSpec("MPC_TKO_SPEED", 1.5, 1.0, 5.0, "m/s"),
    ParamSpec("MPC_ACC_HOR", 3.0, 2.0, 15.0, "m/s/s"),
    ParamSpec("MPC_ACC_UP_MAX", 4.0, 2.0, 15.0, "m/s/s"),
    ParamSpec("MPC_JERK_AUTO", 4.0, 1.0, 80.0, "m/s/s/s"),
    ParamSpec("MPC_LAND_SPEED", 0.7, 0.6, 10.0, "m/s"),
    ParamSpec("MPC_LAND_ALT1", 10.0, 0.0, 122.0, "m"),
    ParamSpec("MPC_LAND_ALT2", 5.0, 0.0, 122.0, "m"),
    ParamSpec("MIS_TAKEOFF_ALT", 2.5, 0.0, 1000.0, "m"),
    ParamSpec("RTL_RETURN_ALT", 60.0, 0.0, 150.0, "m"),
    ParamSpec("RTL_LAND_DELAY", 0.0, 0.0, 300.0, "s"),
    ParamSpec("COM_SPOOLUP_TIME", 1.0, 0.0, 30.0, "s"),
    ParamSpec("COM_DISARM_LAND", 2.0, 0.0, 20.0, "s"),
)
"""PX4's (src/modules/mc_pos_control, navigator, commander). Where PX4 takes -1 for "never"
(RTL_LAND_DELAY, COM_DISARM_LAND) the stand-in does not: it refuses it with the range."""

SCURVE_JERK_SCALE = 2.0
"""ArduCopter flies mission and return legs on S-curves whose jerk rises and falls smoothly up to
WPNAV_JERK; the stand-in's path changes acceleration at a constant jerk, and twice WPNAV_JERK gives
the firmware's leg times and peak speeds (tests/data/ardupilot)."""
LIFT_LAG_S = 0.7
"""ArduCopter SITL leaves the ground this long after its spool-up and throttle slew (measured: 3.2 s
after the take-off command with the defaults; its climb-rate loop building thrust)."""
TOUCHDOWN_S = 3.0
"""ArduCopter SITL disarms this long after touchdown (measured; its land detector and spool-down)."""
PX4_LAND_DETECT_S = 1.0
"""PX4's land detector's trigger time (LNDMC_TRIG_TIME) before COM_DISARM_LAND starts."""


def ardupilot_rules(p: Mapping[str, float]) -> Rules:
    """ArduCopter's parameters (cm, cm/s, ms) in SI units; a 0 LAND_SPEED_HIGH or RTL_SPEED means
    WPNAV_SPEED_DN or WPNAV_SPEED, as on the firmware. GUIDED targets and take-offs are shaped by
    its position controller (PSC_JERK_*), missions and returns by its S-curves (WPNAV_JERK)."""
    speed = p["WPNAV_SPEED"] / 100.0
    sink = p["WPNAV_SPEED_DN"] / 100.0
    limits = Limits(speed=speed, climb=p["WPNAV_SPEED_UP"] / 100.0, sink=sink, accel=p["WPNAV_ACCEL"] / 100.0,
                    accel_z=p["WPNAV_ACCEL_Z"] / 100.0, jerk=p["PSC_JERK_XY"], jerk_z=p["PSC_JERK_Z"])
    leg_jerk = SCURVE_JERK_SCALE * p["WPNAV_JERK"]
    land_high = p["LAND_SPEED_HIGH"] / 100.0
    rtl_speed = p["RTL_SPEED"] / 100.0
    return Rules(
        limits=limits,
        auto=replace(limits, jerk=leg_jerk, jerk_z=min(limits.jerk_z, leg_jerk)),
        takeoff=limits,
        landing=limits,
        land_speed=p["LAND_SPEED"] / 100.0,
        land_speed_high=land_high if land_high > 0.0 else sink,
        land_alt_low=p["LAND_ALT_LOW"] / 100.0,
        land_ramp_alt=p["LAND_ALT_LOW"] / 100.0,
        rtl_alt=p["RTL_ALT"] / 100.0,
        rtl_speed=rtl_speed if rtl_speed > 0.0 else speed,
        rtl_loiter_s=p["RTL_LOIT_TIME"] / 1000.0,
        takeoff_alt=max(p["PILOT_TKOFF_ALT"] / 100.0, 1.0),
        takeoff_delay_s=p["MOT_SPOOL_TIME"] + p["TKOFF_SLEW_TIME"] + LIFT_LAG_S,
        spoolup_s=0.0,
        touchdown_disarm_s=TOUCHDOWN_S,
    )


def px4_rules(p: Mapping[str, float]) -> Rules:
    """PX4's parameters (already SI). Offboard setpoints go to its position controller unshaped,
    within the MPC_*_MAX speeds and the tilt's acceleration; missions, returns and take-offs follow
    its jerk-limited trajectories (MPC_ACC_HOR, MPC_JERK_AUTO) at MPC_XY_CRUISE and MPC_TKO_SPEED;
    landing sinks at MPC_Z_V_AUTO_DN down to MPC_LAND_ALT1, slowing to MPC_LAND_SPEED at MPC_LAND_ALT2
    (ALT1 below ALT2 is read as ALT2, a step there)."""
    tilt_accel = G * math.tan(math.radians(p["MPC_TILTMAX_AIR"]))
    limits = Limits(speed=p["MPC_XY_VEL_MAX"], climb=p["MPC_Z_VEL_MAX_UP"], sink=p["MPC_Z_VEL_MAX_DN"],
                    accel=tilt_accel, accel_z=p["MPC_ACC_UP_MAX"], jerk=UNSHAPED_JERK, jerk_z=UNSHAPED_JERK)
    auto = Limits(speed=p["MPC_XY_CRUISE"], climb=p["MPC_Z_V_AUTO_UP"], sink=p["MPC_Z_V_AUTO_DN"], accel=p["MPC_ACC_HOR"],
                  accel_z=p["MPC_ACC_UP_MAX"], jerk=p["MPC_JERK_AUTO"], jerk_z=p["MPC_JERK_AUTO"])
    return Rules(
        limits=limits,
        auto=auto,
        takeoff=replace(auto, climb=p["MPC_TKO_SPEED"]),
        landing=replace(auto, sink=max(p["MPC_Z_V_AUTO_DN"], p["MPC_LAND_SPEED"])),
        land_speed=p["MPC_LAND_SPEED"],
        land_speed_high=p["MPC_Z_V_AUTO_DN"],
        land_alt_low=p["MPC_LAND_ALT2"],
        land_ramp_alt=max(p["MPC_LAND_ALT1"], p["MPC_LAND_ALT2"]),
        rtl_alt=p["RTL_RETURN_ALT"],
        rtl_speed=p["MPC_XY_CRUISE"],
        rtl_loiter_s=p["RTL_LAND_DELAY"],
        takeoff_alt=p["MIS_TAKEOFF_ALT"],
        takeoff_delay_s=0.0,
        spoolup_s=p["COM_SPOOLUP_TIME"],
        touchdown_disarm_s=PX4_LAND_DETECT_S + p["COM_DISARM_LAND"],
        takeoff_item_flown=True,
        zero_lat_lon_is_here=False,
    )
