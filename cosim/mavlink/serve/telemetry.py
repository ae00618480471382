"""What a served vehicle streams and answers with: the MAVLink messages built from its state
(cosim.mavlink.serve.vehicle_endpoint holds the state; these only read it)."""

from __future__ import annotations

import math

from pymavlink.dialects.v20 import ardupilotmega as apm
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import enu_to_ned, heading_to_yaw
from cosim.mavlink.personality import GUIDED_MODES, PX4
from cosim.mavlink.serve import sensor_streams
from cosim.mavlink.serve.autopilot import Autopilot
from cosim.mavlink.serve.vehicle_state import VehicleState

SENSORS = (mav.MAV_SYS_STATUS_SENSOR_3D_GYRO | mav.MAV_SYS_STATUS_SENSOR_3D_ACCEL | mav.MAV_SYS_STATUS_SENSOR_3D_MAG
           | mav.MAV_SYS_STATUS_SENSOR_ABSOLUTE_PRESSURE | mav.MAV_SYS_STATUS_SENSOR_GPS
           | mav.MAV_SYS_STATUS_SENSOR_MOTOR_OUTPUTS | mav.MAV_SYS_STATUS_PREARM_CHECK)


def heartbeat(ap: Autopilot):
    v = ap.state
    base = mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED | mav.MAV_MODE_FLAG_STABILIZE_ENABLED
    if v.mode in GUIDED_MODES:
        base |= mav.MAV_MODE_FLAG_GUIDED_ENABLED
    if v.armed:
        base |= mav.MAV_MODE_FLAG_SAFETY_ARMED
    state = mav.MAV_STATE_ACTIVE if v.armed else mav.MAV_STATE_STANDBY
    return mav.MAVLink_heartbeat_message(v.body.mav_type, v.personality.autopilot, base, v.personality.modes[v.mode], state, 3)


def _t_ms(v: VehicleState) -> int:
    return int(v.now * 1000) & 0xFFFFFFFF


def global_position(ap: Autopilot):
    """Before a position estimate ArduPilot sends its stale location (zeros); PX4 sends nothing."""
    v = ap.state
    if not v.position_ready:
        return None if v.personality is PX4 else mav.MAVLink_global_position_int_message(_t_ms(v), 0, 0, 0, 0, 0, 0, 0, 0)
    x, y, z = v.body.position()
    vn, ve, vd = enu_to_ned(*v.body.velocity())
    lat, lon, alt = v.origin.to_geodetic(x, y, z)
    hdg = int(math.degrees(heading_to_yaw(v.body.attitude()[2])) % 360.0 * 100)
    return mav.MAVLink_global_position_int_message(_t_ms(v), int(lat * 1e7), int(lon * 1e7), int(alt * 1000),
                                                   int((z - v.home[2]) * 1000), int(vn * 100), int(ve * 100),
                                                   int(vd * 100), hdg)


def local_position(ap: Autopilot):
    v = ap.state
    return mav.MAVLink_local_position_ned_message(_t_ms(v), *enu_to_ned(*v.body.position()),
                                                  *enu_to_ned(*v.body.velocity()))


def attitude(ap: Autopilot):
    v = ap.state
    roll, pitch, heading = v.body.attitude()
    # body FLU -> FRD: roll keeps its sign, pitch (nose up positive in FRD) flips
    return mav.MAVLink_attitude_message(_t_ms(v), roll, -pitch, heading_to_yaw(heading), 0.0, 0.0, 0.0)


def sys_status(ap: Autopilot):
    v = ap.state
    health = SENSORS if v.body.healthy() else 0
    if not v.position_ready:
        health &= ~(mav.MAV_SYS_STATUS_SENSOR_GPS | mav.MAV_SYS_STATUS_PREARM_CHECK)
    return mav.MAVLink_sys_status_message(SENSORS, SENSORS, health, 200, 12600, -1, 90, 0, 0, 0, 0, 0, 0)


def extended_state(ap: Autopilot):
    v = ap.state
    if v.landing:
        landed = mav.MAV_LANDED_STATE_LANDING
    elif not v.armed or v.body.on_ground:
        landed = mav.MAV_LANDED_STATE_ON_GROUND
    else:
        landed = mav.MAV_LANDED_STATE_IN_AIR
    vtol = mav.MAV_VTOL_STATE_MC if v.body.vehicle == "copter" else mav.MAV_VTOL_STATE_UNDEFINED
    return mav.MAVLink_extended_sys_state_message(vtol, landed)


def home(ap: Autopilot):
    """Sent once home is set: with the first position estimate."""
    v = ap.state
    if not v.position_ready:
        return None
    lat, lon, alt = v.origin.to_geodetic(*v.home)
    n, e, d = enu_to_ned(*v.home)
    return mav.MAVLink_home_position_message(int(lat * 1e7), int(lon * 1e7), int(alt * 1000), n, e, d,
                                             [1.0, 0.0, 0.0, 0.0], 0.0, 0.0, 0.0)


EKF_NO_POSITION = apm.EKF_ATTITUDE | apm.EKF_VELOCITY_VERT | apm.EKF_POS_VERT_ABS | apm.EKF_CONST_POS_MODE
"""A cold EKF: attitude and height, no horizontal position yet (constant-position mode)."""
EKF_HEALTHY = (apm.EKF_ATTITUDE | apm.EKF_VELOCITY_HORIZ | apm.EKF_VELOCITY_VERT | apm.EKF_POS_HORIZ_REL
               | apm.EKF_POS_HORIZ_ABS | apm.EKF_POS_VERT_ABS | apm.EKF_PRED_POS_HORIZ_REL | apm.EKF_PRED_POS_HORIZ_ABS)


def ekf_status(ap: Autopilot):
    """ArduPilot's EKF_STATUS_REPORT (its own dialect): every estimate good once the vehicle has a
    position (MAVSDK's health checks read it on ArduPilot; the adapter's readiness too)."""
    v = ap.state
    flags = EKF_HEALTHY if v.position_ready else EKF_NO_POSITION  # (a failed motor is SYS_STATUS's to say)
    return apm.MAVLink_ekf_status_report_message(flags, 0.1, 0.1, 0.1, 0.1, 0.0, 0.0)


def gps_raw(ap: Autopilot):
    """GPS_RAW_INT: a 3D fix with 10 satellites once ready; before, no fix and no satellites."""
    v = ap.state
    if not v.position_ready:
        return mav.MAVLink_gps_raw_int_message(int(v.now * 1e6), mav.GPS_FIX_TYPE_NO_FIX, 0, 0, 0, 65535, 65535, 0,
                                               65535, 0)
    x, y, z = v.body.position()
    lat, lon, alt = v.origin.to_geodetic(x, y, z)
    ve, vn, _ = v.body.velocity()
    cog = int(math.degrees(math.atan2(ve, vn)) % 360.0 * 100)
    return mav.MAVLink_gps_raw_int_message(int(v.now * 1e6), mav.GPS_FIX_TYPE_3D_FIX, int(lat * 1e7), int(lon * 1e7),
                                           int(alt * 1000), 121, 200, int(math.hypot(ve, vn) * 100), cog, 10)


def battery_status(ap: Autopilot):
    """BATTERY_STATUS: the same 12.6 V, 90% pack SYS_STATUS reports."""
    return mav.MAVLink_battery_status_message(0, mav.MAV_BATTERY_FUNCTION_UNKNOWN, mav.MAV_BATTERY_TYPE_UNKNOWN,
                                              32767, [12600] + [65535] * 9, -1, -1, -1, 90)


def vfr_hud(ap: Autopilot):
    """VFR_HUD: speeds (m/s), heading (degrees), throttle (%), altitude above sea level and climb."""
    v = ap.state
    z = v.body.position()[2]
    ve, vn, vu = v.body.velocity()
    hdg = int(math.degrees(heading_to_yaw(v.body.attitude()[2])) % 360.0)
    speed = math.hypot(ve, vn)
    return mav.MAVLink_vfr_hud_message(speed, speed, hdg, 50 if v.armed else 0, v.origin.alt + z, vu)


def mission_current(ap: Autopilot):
    return ap.missions.current_message()


STREAMS = {mav.MAVLINK_MSG_ID_GLOBAL_POSITION_INT: global_position, mav.MAVLINK_MSG_ID_LOCAL_POSITION_NED: local_position,
           mav.MAVLINK_MSG_ID_ATTITUDE: attitude, mav.MAVLINK_MSG_ID_SYS_STATUS: sys_status,
           mav.MAVLINK_MSG_ID_EXTENDED_SYS_STATE: extended_state, mav.MAVLINK_MSG_ID_HOME_POSITION: home,
           mav.MAVLINK_MSG_ID_MISSION_CURRENT: mission_current, mav.MAVLINK_MSG_ID_GPS_RAW_INT: gps_raw,
           mav.MAVLINK_MSG_ID_BATTERY_STATUS: battery_status, mav.MAVLINK_MSG_ID_VFR_HUD: vfr_hud}
"""The streamed messages by id, besides the 1 Hz heartbeat."""
DIALECT_STREAMS = {apm.MAVLINK_MSG_ID_EKF_STATUS_REPORT: ekf_status, **sensor_streams.ARDUPILOT_ONLY}
"""Messages of an autopilot's own dialect, streamed when its personality has them (off until asked)."""
DEFAULT_HZ = {mav.MAVLINK_MSG_ID_GLOBAL_POSITION_INT: 10.0, mav.MAVLINK_MSG_ID_LOCAL_POSITION_NED: 10.0,
              mav.MAVLINK_MSG_ID_ATTITUDE: 10.0, mav.MAVLINK_MSG_ID_SYS_STATUS: 2.0,
              mav.MAVLINK_MSG_ID_EXTENDED_SYS_STATE: 2.0, mav.MAVLINK_MSG_ID_HOME_POSITION: 2.0,
              mav.MAVLINK_MSG_ID_MISSION_CURRENT: 1.0, mav.MAVLINK_MSG_ID_GPS_RAW_INT: 2.0,
              mav.MAVLINK_MSG_ID_BATTERY_STATUS: 1.0, mav.MAVLINK_MSG_ID_VFR_HUD: 4.0}
MAX_HZ = 50.0
"""The fastest stream: one message per poll of a scenario's sockets (every 20 ms by default)."""


DATA_STREAMS = {
    mav.MAV_DATA_STREAM_EXTENDED_STATUS: (mav.MAVLINK_MSG_ID_SYS_STATUS, mav.MAVLINK_MSG_ID_MISSION_CURRENT,
                                          mav.MAVLINK_MSG_ID_EXTENDED_SYS_STATE, mav.MAVLINK_MSG_ID_GPS_RAW_INT),
    mav.MAV_DATA_STREAM_POSITION: (mav.MAVLINK_MSG_ID_GLOBAL_POSITION_INT, mav.MAVLINK_MSG_ID_LOCAL_POSITION_NED),
    mav.MAV_DATA_STREAM_EXTRA1: (mav.MAVLINK_MSG_ID_ATTITUDE,),
    mav.MAV_DATA_STREAM_EXTRA2: (mav.MAVLINK_MSG_ID_VFR_HUD,),
    mav.MAV_DATA_STREAM_EXTRA3: (apm.MAVLINK_MSG_ID_EKF_STATUS_REPORT, mav.MAVLINK_MSG_ID_BATTERY_STATUS),
}
DATA_STREAMS = {k: DATA_STREAMS.get(k, ()) + sensor_streams.GROUPS.get(k, ()) for k in {*DATA_STREAMS, *sensor_streams.GROUPS}}
"""REQUEST_DATA_STREAM's groups (ArduPilot's): the messages of each that a served vehicle has;
MAV_DATA_STREAM_ALL is all of them."""


class Streams:
    """Which messages a vehicle streams, at what rate, and when each is next due (each keeps its
    cadence: a late poll does not delay the next one). `unasked`: start with the default rates (PX4)
    or with every stream off until a ground station asks (ArduPilot). SET_MESSAGE_INTERVAL and
    REQUEST_DATA_STREAM change them."""

    def __init__(self, unasked: bool = True, dialect: tuple[int, ...] = ()) -> None:
        self.default_hz = dict(DEFAULT_HZ) if unasked else dict.fromkeys(DEFAULT_HZ, 0.0)
        self.default_hz.update(dict.fromkeys([*dialect, *sensor_streams.COMMON], 0.0))  # off until asked
        self.builders = {**STREAMS, **sensor_streams.COMMON, **{k: DIALECT_STREAMS[k] for k in dialect}}
        self.hz = dict(self.default_hz)  # message id -> rate (Hz); 0: stopped
        self._next: dict[object, float] = {}

    def due(self, key: object, hz: float, now: float) -> bool:
        nxt = self._next.get(key, 0.0)
        period = 1.0 / hz
        if now < nxt - 1e-9:
            return False
        self._next[key] = nxt + period if now - nxt < period else now + period
        return True

    def due_now(self, now: float) -> list[int]:
        """The ids of the streamed messages due at `now`."""
        return [k for k, hz in self.hz.items() if hz > 0 and self.due(k, hz, now)]

    def set_interval(self, msg_id: float, interval_us: float) -> str | None:
        """Interval in microseconds, -1 stops the stream, 0 restores its default; the problem, if refused."""
        k = int(msg_id)
        if k not in self.builders:
            return f"Interval: message {k} is not streamed"
        if interval_us == -1:
            self.hz[k] = 0.0
        elif interval_us == 0:
            self.hz[k] = self.default_hz[k]
        elif interval_us >= 1e6 / MAX_HZ:
            self.hz[k] = 1e6 / interval_us
        else:
            return f"Interval: at most {MAX_HZ:g} Hz"
        self._next.pop(k, None)  # the new rate from now, not after the old period ends
        return None

    def request_data_stream(self, stream_id: int, rate_hz: int, start: bool) -> None:
        """REQUEST_DATA_STREAM: a group of messages at `rate_hz` (at most MAX_HZ), or stopped."""
        groups = DATA_STREAMS.values() if stream_id == mav.MAV_DATA_STREAM_ALL else [DATA_STREAMS.get(stream_id, ())]
        for ids in groups:
            for k in (k for k in ids if k in self.builders):
                self.hz[k] = min(float(rate_hz), MAX_HZ) if start and rate_hz > 0 else 0.0


def requested(ap: Autopilot, streams: Streams, msg_id: int):
    """The message MAV_CMD_REQUEST_MESSAGE asked for, or None if the vehicle does not provide it."""
    if msg_id == mav.MAVLINK_MSG_ID_AUTOPILOT_VERSION:
        caps = (mav.MAV_PROTOCOL_CAPABILITY_MAVLINK2 | mav.MAV_PROTOCOL_CAPABILITY_SET_POSITION_TARGET_LOCAL_NED
                | mav.MAV_PROTOCOL_CAPABILITY_COMMAND_INT | mav.MAV_PROTOCOL_CAPABILITY_PARAM_FLOAT
                | mav.MAV_PROTOCOL_CAPABILITY_MISSION_INT | mav.MAV_PROTOCOL_CAPABILITY_MISSION_FLOAT)
        return mav.MAVLink_autopilot_version_message(caps, 1 << 24, 0, 0, 0, [0] * 8, [0] * 8, [0] * 8, 0, 0,
                                                     ap.state.sysid, [0] * 18)
    builder = streams.builders.get(msg_id)
    return builder(ap) if builder is not None else None
