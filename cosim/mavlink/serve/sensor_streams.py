"""The rest of what ArduPilot streams from a vehicle with an IMU, a barometer, a compass, a GPS and a
battery monitor (its stream groups, GCS_MAVLink_Parameters.cpp): raw sensors, power, memory, the
navigation controller, servo outputs, RC, AHRS and wind. Built from the simulated body's state;
where the body has no such sensor, the reading is that of a vehicle at rest in it:

- accelerometers read gravity only (specific force of a hovering or resting body, no manoeuvre
  accelerations) and gyros read zero; the compass reads a fixed 0.5 G field (north 200 mG, down
  430 mG) turned by the heading;
- the barometer reads the standard atmosphere at the altitude, 25 degrees C;
- no RC receiver is simulated: RC_CHANNELS has no channels; there is no wind;
- servo outputs are the rotor thrusts (or the rover's wheel commands) as PWM.
"""

from __future__ import annotations

import math
import time

from pymavlink.dialects.v20 import ardupilotmega as apm
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import heading_to_yaw
from cosim.mavlink.serve.autopilot import Autopilot
from cosim.mavlink.serve.vehicle_state import VehicleState

MILLI_G = 1000.0 / 9.80665
_UNUSED = 65535


def _t_ms(v: VehicleState) -> int:
    return int(v.now * 1000) & 0xFFFFFFFF


def _imu(v: VehicleState) -> tuple[int, ...]:
    """Accelerometer (mG), gyro (mrad/s) and compass (mGauss), body FRD, of the body at rest."""
    roll, pitch_flu, heading = v.body.attitude()
    pitch = -pitch_flu
    g = 9.80665 * MILLI_G
    acc = (g * math.sin(pitch), -g * math.sin(roll) * math.cos(pitch), -g * math.cos(roll) * math.cos(pitch))
    yaw = heading_to_yaw(heading)
    mag = (200.0 * math.cos(yaw), -200.0 * math.sin(yaw), 430.0)
    return (*(round(a) for a in acc), 0, 0, 0, *(round(m) for m in mag))


def raw_imu(ap: Autopilot):
    v = ap.state
    return mav.MAVLink_raw_imu_message(int(v.now * 1e6), *_imu(v), 0, 2500)


def scaled_imu2(ap: Autopilot):
    v = ap.state
    return mav.MAVLink_scaled_imu2_message(_t_ms(v), *_imu(v), 2500)


def scaled_pressure(ap: Autopilot):
    v = ap.state
    alt = v.origin.alt + v.body.position()[2]
    hpa = 1013.25 * (1.0 - 2.25577e-5 * alt) ** 5.25588
    return mav.MAVLink_scaled_pressure_message(_t_ms(v), hpa, 0.0, 2500, 0)


def power_status(ap: Autopilot):
    return mav.MAVLink_power_status_message(5000, 0, mav.MAV_POWER_STATUS_BRICK_VALID)


def meminfo(ap: Autopilot):
    return apm.MAVLink_meminfo_message(0, 65535, 131072)


def nav_controller_output(ap: Autopilot):
    """The attitude flown and the heading; no waypoint distance or errors are kept for it."""
    v = ap.state
    roll, pitch, heading = v.body.attitude()
    bearing = round(math.degrees(heading_to_yaw(heading))) % 360
    return mav.MAVLink_nav_controller_output_message(math.degrees(roll), math.degrees(-pitch), bearing, bearing,
                                                     0, 0.0, 0.0, 0.0)


def position_target(ap: Autopilot):
    """Where the vehicle is (the controller's target is not kept apart from it)."""
    v = ap.state
    x, y, z = v.body.position()
    lat, lon, alt = v.origin.to_geodetic(x, y, z)
    ignore_rest = 0b110111111000  # position and nothing else
    return mav.MAVLink_position_target_global_int_message(_t_ms(v), mav.MAV_FRAME_GLOBAL_INT, ignore_rest,
                                                          round(lat * 1e7), round(lon * 1e7), alt, 0, 0, 0, 0, 0, 0,
                                                          heading_to_yaw(v.body.attitude()[2]), 0)


def servo_output_raw(ap: Autopilot):
    v = ap.state
    out = list(v.body.motor_outputs()) + [0] * 4
    return mav.MAVLink_servo_output_raw_message(int(v.now * 1e6) & 0xFFFFFFFF, 0, *out[:8])


def rc_channels(ap: Autopilot):
    v = ap.state
    return mav.MAVLink_rc_channels_message(_t_ms(v), 0, *([_UNUSED] * 18), 255)


def ahrs(ap: Autopilot):
    return apm.MAVLink_ahrs_message(0.0, 0.0, 0.0, 0.0, 0.0, 0.01, 0.01)


def ahrs2(ap: Autopilot):
    v = ap.state
    roll, pitch, heading = v.body.attitude()
    lat, lon, alt = v.origin.to_geodetic(*v.body.position())
    return apm.MAVLink_ahrs2_message(roll, -pitch, heading_to_yaw(heading), alt, round(lat * 1e7), round(lon * 1e7))


def system_time(ap: Autopilot):
    """GPS time once there is a fix (the wall clock here), 0 before."""
    v = ap.state
    unix_us = int(time.time() * 1e6) if v.position_ready else 0
    return mav.MAVLink_system_time_message(unix_us, _t_ms(v))


def vibration(ap: Autopilot):
    v = ap.state
    return mav.MAVLink_vibration_message(int(v.now * 1e6), 0.0, 0.0, 0.0, 0, 0, 0)


def wind(ap: Autopilot):
    return apm.MAVLink_wind_message(0.0, 0.0, 0.0)


COMMON = {mav.MAVLINK_MSG_ID_RAW_IMU: raw_imu, mav.MAVLINK_MSG_ID_SCALED_IMU2: scaled_imu2,
          mav.MAVLINK_MSG_ID_SCALED_PRESSURE: scaled_pressure, mav.MAVLINK_MSG_ID_POWER_STATUS: power_status,
          mav.MAVLINK_MSG_ID_NAV_CONTROLLER_OUTPUT: nav_controller_output,
          mav.MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT: position_target,
          mav.MAVLINK_MSG_ID_SERVO_OUTPUT_RAW: servo_output_raw, mav.MAVLINK_MSG_ID_RC_CHANNELS: rc_channels,
          mav.MAVLINK_MSG_ID_SYSTEM_TIME: system_time, mav.MAVLINK_MSG_ID_VIBRATION: vibration}
"""Common-dialect messages: off until a ground station asks, on either personality."""
ARDUPILOT_ONLY = {apm.MAVLINK_MSG_ID_MEMINFO: meminfo, apm.MAVLINK_MSG_ID_AHRS: ahrs, apm.MAVLINK_MSG_ID_AHRS2: ahrs2,
                  apm.MAVLINK_MSG_ID_WIND: wind}
"""ArduPilot's own dialect (its personalities list them in `dialect_streams`)."""
GROUPS = {
    mav.MAV_DATA_STREAM_RAW_SENSORS: (mav.MAVLINK_MSG_ID_RAW_IMU, mav.MAVLINK_MSG_ID_SCALED_IMU2,
                                      mav.MAVLINK_MSG_ID_SCALED_PRESSURE),
    mav.MAV_DATA_STREAM_EXTENDED_STATUS: (mav.MAVLINK_MSG_ID_POWER_STATUS, apm.MAVLINK_MSG_ID_MEMINFO,
                                          mav.MAVLINK_MSG_ID_NAV_CONTROLLER_OUTPUT,
                                          mav.MAVLINK_MSG_ID_POSITION_TARGET_GLOBAL_INT),
    mav.MAV_DATA_STREAM_RC_CHANNELS: (mav.MAVLINK_MSG_ID_SERVO_OUTPUT_RAW, mav.MAVLINK_MSG_ID_RC_CHANNELS),
    mav.MAV_DATA_STREAM_EXTRA1: (apm.MAVLINK_MSG_ID_AHRS2,),
    mav.MAV_DATA_STREAM_EXTRA3: (apm.MAVLINK_MSG_ID_AHRS, apm.MAVLINK_MSG_ID_WIND, mav.MAVLINK_MSG_ID_SYSTEM_TIME,
                                 mav.MAVLINK_MSG_ID_VIBRATION),
}
"""What each REQUEST_DATA_STREAM group adds to telemetry.DATA_STREAMS's (ArduPilot's groups)."""
