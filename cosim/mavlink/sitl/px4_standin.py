"""A stand-in for PX4 SITL on its side of the simulator interface (cosim.mavlink.sitl.px4_wire), for tests
and for trying a `mavlink.sitl` PX4 scenario without a PX4 build. It behaves as PX4's
`simulator_mavlink` does: it connects to the simulator's TCP port (trying again until it is there),
sends a HEARTBEAT, takes its clock from each HIL_SENSOR's time and answers each one with one
HIL_ACTUATOR_CONTROLS stamped with that time, its outputs 0 and the armed bit clear until it arms, and
the lock-step flag set. It arms at `arm_at_s` of that clock once it has had a 3D GPS fix. Its flight
code is a small quad X controller of its own (climb to `altitude` m on the barometer, level on its
integrated gyro), in PX4's motor order (front right, back left, front left, back right); it is not
PX4's and flies nothing else.

With `mavlink_port` it speaks MAVLink instead, as PX4 instance k does on its ground-station link
(UDP 18570 + k, cosim.mavlink.sitl.px4_gcs_link): it flies the served PX4 autopilot (arming, modes,
take-off, missions; cosim.mavlink.sitl.standin_autopilot) on what its sensors tell it
(cosim.mavlink.sitl.px4_standin_estimate), and arms only when a ground station says so.
"""

from __future__ import annotations

import socket
import threading
import time

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.personality import PX4
from cosim.mavlink.sitl.px4_gcs_link import REMOTE_PORT, Px4GcsLink
from cosim.mavlink.sitl.px4_standin_estimate import DeadReckoning
from cosim.mavlink.sitl.px4_wire import MAGNETIC_FIELD_NED_G
from cosim.mavlink.sitl.standin_autopilot import StandInAutopilot
from physics.geodesy import GeoOrigin

_ROLL = (-0.5, 0.5, 0.5, -0.5)
_PITCH = (0.5, -0.5, 0.5, -0.5)
_YAW = (1.0, 1.0, -1.0, -1.0)


class StandInPx4:
    """Connects to host:port; `start()` runs it in a thread, `stop()` ends it. With `mavlink_port`, system
    `sysid` at `home` (latitude, longitude, altitude: where its robot starts), facing `heading` (rad
    from east), sending to `remote_port` until a ground station writes; `position_after_s`: how long
    after boot it has no position estimate; `link_after_s`: when its MAVLink link starts (PX4 starts
    its mavlink module while it boots, after the simulator has connected)."""

    def __init__(self, port: int, host: str = "127.0.0.1", altitude: float = 3.0, arm_at_s: float = 1.0,
                 connect_within_s: float = 30.0, mavlink_port: int | None = None, sysid: int = 1,
                 home: tuple[float, float, float] = (47.3977, 8.5456, 488.0), heading: float = 0.0,
                 remote_port: int = REMOTE_PORT, position_after_s: float = 2.0, link_after_s: float = 0.5) -> None:
        self.addr = (host, port)
        self.altitude = altitude
        self.arm_at_s = arm_at_s
        self.connect_within_s = connect_within_s
        self.armed_at: float | None = None
        self.sensors = 0
        self.gps_fixes = 0
        self.errors: list[str] = []
        self._codec = mav.MAVLink(None, srcSystem=1, srcComponent=1)
        self._codec.robust_parsing = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._angles = [0.0, 0.0]
        self._last_us = 0
        self._alt0: float | None = None
        self._last_alt = 0.0
        self.link_after_s = link_after_s
        self.autopilot: StandInAutopilot | None = None
        self.estimate: DeadReckoning | None = None
        if mavlink_port is not None:
            origin = GeoOrigin(*home)
            link = Px4GcsLink(mavlink_port, host, remote_port)
            self.autopilot = StandInAutopilot(link, PX4, sysid, origin, heading, lambda: None, position_after_s)
            self.estimate = DeadReckoning(origin, MAGNETIC_FIELD_NED_G)

    def start(self) -> StandInPx4:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5.0)
        if self.autopilot is not None:
            self.autopilot.close()

    def _connect(self) -> socket.socket | None:
        end = time.monotonic() + self.connect_within_s
        while not self._stop.is_set() and time.monotonic() < end:
            try:
                return socket.create_connection(self.addr, timeout=0.5)
            except OSError:
                time.sleep(0.05)
        return None

    def _run(self) -> None:
        sock = self._connect()
        if sock is None:
            self.errors.append(f"no simulator on tcp {self.addr[0]}:{self.addr[1]}")
            return
        sock.settimeout(0.2)
        hb = mav.MAVLink_heartbeat_message(mav.MAV_TYPE_QUADROTOR, mav.MAV_AUTOPILOT_PX4, 0, 0, mav.MAV_STATE_STANDBY, 3)
        sock.sendall(hb.pack(self._codec))
        with sock:
            while not self._stop.is_set():
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                for msg in self._codec.parse_buffer(data) or []:
                    self._take(sock, msg)

    def _take(self, sock: socket.socket, msg) -> None:
        kind = msg.get_type()
        if kind == "HIL_GPS" and msg.fix_type >= 3:
            self.gps_fixes += 1
            if self.estimate is not None:
                self.estimate.gps(msg)
        elif kind == "HIL_SENSOR" and msg.id == 0:
            self.sensors += 1
            outputs = self._fly(msg) if self.autopilot is None else self._autopilot(msg)
            mode = mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED | (mav.MAV_MODE_FLAG_SAFETY_ARMED if self.armed_at is not None else 0)
            answer = mav.MAVLink_hil_actuator_controls_message(msg.time_usec, outputs + [0.0] * 12, mode, 1)
            sock.sendall(answer.pack(self._codec))

    def _autopilot(self, s) -> list[float]:
        """Four outputs (0..1) from the served PX4 autopilot, which reads its MAVLink link first."""
        dt = (s.time_usec - self._last_us) / 1e6 if self._last_us else 0.004
        self._last_us = s.time_usec
        state = self.estimate.sensor(s)
        if state.timestamp < self.link_after_s:
            return [0.0] * 4  # still booting: no MAVLink yet
        pwm = self.autopilot.frame(state, s.time_usec / 1e6, dt)
        if self.autopilot.armed and self.armed_at is None:
            self.armed_at = s.time_usec / 1e6
        if not self.autopilot.armed:
            self.armed_at = None
        return [(p - 1000) / 1000.0 for p in pwm]

    def _fly(self, s) -> list[float]:
        """Four outputs (0..1) for this sensor sample: nothing until armed, then climb and hold level."""
        t = s.time_usec / 1e6
        dt = (s.time_usec - self._last_us) / 1e6 if self._last_us else 0.0
        self._last_us = s.time_usec
        self._angles[0] += s.xgyro * dt
        self._angles[1] += s.ygyro * dt
        if self._alt0 is None:
            self._alt0 = s.pressure_alt
            self._last_alt = s.pressure_alt
        up = s.pressure_alt - self._alt0
        climb = (s.pressure_alt - self._last_alt) / dt if dt > 0 else 0.0
        self._last_alt = s.pressure_alt
        if self.armed_at is None and t >= self.arm_at_s and self.gps_fixes:
            self.armed_at = t
        if self.armed_at is None:
            return [0.0] * 4
        throttle = 0.45 + 0.08 * (self.altitude - up) - 0.12 * climb
        roll_cmd = -0.4 * self._angles[0] - 0.08 * s.xgyro
        pitch_cmd = -0.4 * self._angles[1] - 0.08 * s.ygyro
        yaw_cmd = -0.1 * s.zgyro
        return [min(max(throttle + roll_cmd * _ROLL[k] + pitch_cmd * _PITCH[k] + yaw_cmd * _YAW[k], 0.0), 1.0)
                for k in range(4)]
