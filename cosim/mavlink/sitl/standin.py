"""A stand-in for ArduPilot firmware on its side of the JSON SITL interface, for tests and for
trying a `mavlink.sitl` scenario without an ArduPilot build. It speaks the protocol as the firmware
does (cosim.mavlink.sitl.json_wire, ArduPilot's libraries/SITL/SIM_JSON.cpp): servo packets with magic
18458, a frame count that goes up by one per answered frame, and a frame rate that starts at 1200 Hz
and then reports the rate of the answers, nudged by 1 Hz toward SIM_RATE_HZ (`sim_rate_hz`). It
takes each datagram it receives as the answer to its latest frame, one per frame, as the firmware
does: an answer whose timestamp is not newer still counts a frame, but the clock does not move, the
IMU does not sample and the motors keep their last outputs (so two answers to one frame leave it a
frame behind for good). It checks the mandatory fields, and sends the same frame again (same count)
when nothing comes within `resend_after_s` (the firmware: after about 1.1 s);
`restart()` starts the count again from 0, as a restarted firmware does.

Before it flies it checks what ArduCopter checks when a ground station arms it (`arm_at_s` of
simulated time, then once a second until armed), in its words (`statustexts`):
- its IMU samples at most once per frame and at most at 1000 Hz (AP_InertialSensor_SITL), and the
  gyro rate is estimated as the firmware does (a filtered once-a-second count, starting from
  1000 Hz); below 1.8 times the loop rate (`loop_rate_hz`, SCHED_LOOP_RATE) it refuses with
  "Arm: Gyro 0 rate 400Hz < loop rate*1.8 720Hz";
- before `position_after_s` (its EKF and GPS not yet ready) it refuses with "Arm: Need Position Estimate".
Real SITL has a position 20-40 s after a cold start; the defaults (5 s) keep tests short, and the gyro
rule has converged enough by then to refuse a 400 Hz coupling.
Disarmed, its motors stand still (1000 us). Its flight code is a small quad X controller (climb to
`altitude` m, hold level, hold yaw) with ArduCopter's motor order and mixing signs; it is not
ArduPilot's and flies nothing else.

With `mavlink_port` it speaks MAVLink instead, as ArduCopter started with `--serial0
udpclient:host:mavlink_port --sysid sysid` does: it arms, takes off, flies guided targets and
missions when a ground station says so (cosim.mavlink.sitl.standin_autopilot), refusing to arm
with the same gyro words, and with "Arm: Need Position Estimate" before `position_after_s`.
"""

from __future__ import annotations

import math
import socket
import threading
from typing import TYPE_CHECKING

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.sitl.json_wire import ServoFrame, State, parse_state

if TYPE_CHECKING:
    from cosim.mavlink.sitl.standin_autopilot import StandInAutopilot

# ArduCopter's quad X: motors front-right (CCW), back-left (CCW), front-left (CW), back-right (CW)
_ROLL = (-0.5, 0.5, 0.5, -0.5)
_PITCH = (0.5, -0.5, 0.5, -0.5)
_YAW = (1.0, 1.0, -1.0, -1.0)


class StandInFirmware:
    """Sends to the physics at host:port from its own UDP socket; `start()` runs it in a thread."""

    def __init__(self, port: int, host: str = "127.0.0.1", altitude: float = 3.0, sim_rate_hz: int = 1200,
                 loop_rate_hz: int = 400, arm_at_s: float = 5.0, position_after_s: float = 5.0,
                 resend_after_s: float = 1.1, ignore_answers: tuple[int, ...] = (), restart_at: int | None = None,
                 mavlink_port: int | None = None, sysid: int = 1, home: tuple[float, float, float] = (47.3977, 8.5456, 488.0),
                 heading: float = 0.0) -> None:
        self.addr = (host, port)
        self.mavlink = None if mavlink_port is None else (host, mavlink_port, sysid, GeoOrigin(*home), heading)
        self.autopilot: StandInAutopilot | None = None
        self.altitude = altitude
        self.resend_after_s = resend_after_s
        self.sim_rate_hz = sim_rate_hz
        self.loop_rate_hz = loop_rate_hz
        self.arm_at_s = arm_at_s
        self.position_after_s = position_after_s
        self.statustexts: list[tuple[float, str]] = []
        self.armed_at: float | None = None
        self.rates_sent: list[int] = []
        self.ignore_answers = set(ignore_answers)  # frame counts whose first answer is "lost"
        self.restart_at = restart_at  # restart (once) on reaching this frame count
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, 0))
        self.states: list[State] = []
        self.errors: list[str] = []
        self.resends = 0
        self._count = 0
        self._restart = False
        self._i_alt = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> StandInFirmware:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5.0)
        self.sock.close()
        if self.autopilot is not None:
            self.autopilot.close()

    def restart(self) -> None:
        """The next frame counts from 0 again (a restarted firmware)."""
        self._restart = True

    def _boot(self) -> None:
        """A new firmware process: it knows no earlier timestamp, and is disarmed."""
        self._count = 0
        self._restart = False
        self._i_alt = 0.0
        self._last_ts = -math.inf
        self._rate_hz = 1200.0
        self._now_us = 0.0  # SIM_Aircraft's rate_hz before any answer
        self._imu = _GyroRate()
        self._next_arm = self.arm_at_s
        self.armed_at = None
        if self.mavlink is not None:
            if self.autopilot is not None:
                self.autopilot.close()
            from cosim.mavlink.personality import ARDUPILOT  # pymavlink: only when it speaks MAVLink
            from cosim.mavlink.serve.vehicle_port import VehiclePort
            from cosim.mavlink.sitl.standin_autopilot import StandInAutopilot

            host, port, sysid, home, heading = self.mavlink
            link = VehiclePort(0, host)
            link.add_peer(host, port)  # --serial0 udpclient:host:port
            self.autopilot = StandInAutopilot(link, ARDUPILOT, sysid, home, heading, self._gyro_refusal,
                                              self.position_after_s)

    def _run(self) -> None:
        pwm = (1000,) * 16
        self._boot()
        while not self._stop.is_set():
            if self.restart_at is not None and self._count == self.restart_at:
                self.restart_at = None
                self._restart = True
            if self._restart:
                self._boot()
            frame = ServoFrame(int(self._rate_hz), self._count, pwm)
            self.rates_sent.append(frame.frame_rate)
            state = self._exchange(frame)
            if state is None:
                continue
            self._count += 1
            if not self._advance(state):
                continue  # no newer time: the same outputs again
            self.states.append(state)
            pwm = self._outputs(state) + (1000,) * 12

    def _outputs(self, state: State) -> tuple[int, ...]:
        """Motors 1-4 for this frame: the MAVLink autopilot's, or the built-in climb once armed."""
        if self.autopilot is not None:
            pwm = self.autopilot.frame(state, self._now_us / 1e6, 1.0 / self._rate_hz)
            if self.autopilot.armed and self.armed_at is None:
                self.armed_at = self._now_us / 1e6
            return pwm
        return self._fly(state) if self.armed_at is not None else (1000,) * 4

    def _advance(self, state: State) -> bool:
        """The firmware's clock, frame rate and IMU after an answer (SIM_JSON::recv_fdm, update); False
        when its timestamp is not newer (time stands still: no sample, no flight code)."""
        dt = state.timestamp - self._last_ts if self._last_ts > -math.inf else state.timestamp
        self._last_ts = state.timestamp
        dt = max(dt, 0.0)  # older: "Detected physics reset", no time passes
        self._now_us += dt * 1e6
        if 0.0 < dt < 0.1:
            self._rate_hz = 1.0 / dt
        self._rate_hz = min(max(float(self.sim_rate_hz), self._rate_hz - 1.0), self._rate_hz + 1.0)
        if dt == 0.0:
            return False
        self._imu.frame(self._now_us)
        t = self._now_us / 1e6
        if self.autopilot is None and self.armed_at is None and t >= self._next_arm:
            self._next_arm = t + 1.0
            self._try_arm(t)
        return True

    def _gyro_refusal(self) -> str | None:
        """ArduCopter's refusal while its gyro samples too slowly for its loop rate (None: fast enough)."""
        threshold = 1.8 * self.loop_rate_hz
        if self._imu.rate_hz < threshold:
            return f"Arm: Gyro 0 rate {int(self._imu.rate_hz)}Hz < loop rate*1.8 {int(threshold)}Hz"
        return None

    def _try_arm(self, t: float) -> None:
        gyro = self._gyro_refusal()
        if gyro is not None:
            self.statustexts.append((t, gyro))
        elif t < self.position_after_s:
            self.statustexts.append((t, "Arm: Need Position Estimate"))
        else:
            self.armed_at = t
            self.statustexts.append((t, "Arming motors"))

    def _exchange(self, frame: ServoFrame) -> State | None:
        """Send `frame` (again after resend_after_s with nothing received) until a datagram with a state comes:
        whatever its timestamp, it is this frame's answer (SIM_JSON::recv_fdm reads one datagram)."""
        self.sock.sendto(frame.pack(), self.addr)
        lost = frame.frame_count in self.ignore_answers
        self.ignore_answers.discard(frame.frame_count)
        self.sock.settimeout(min(self.resend_after_s, 0.5))
        waited = 0.0
        while not self._stop.is_set():
            try:
                data, _ = self.sock.recvfrom(65536)
            except TimeoutError:
                waited += min(self.resend_after_s, 0.5)
                if waited >= self.resend_after_s:
                    self.resends += 1
                    self.sock.sendto(frame.pack(), self.addr)  # the same frame, the same count
                    waited = 0.0
                continue
            except OSError:
                return None
            if lost:
                lost = False  # this answer never arrived, as far as the firmware knows
                continue
            try:
                state = parse_state(data)
            except ValueError as exc:
                self.errors.append(str(exc))
                continue
            return state
        return None

    def _fly(self, s: State) -> tuple[int, ...]:
        """Four PWM outputs (us) in ArduCopter's motor order."""
        dt = 1.0 / self._rate_hz
        up = -s.position[2]
        climb = -s.velocity[2]
        err = self.altitude - up
        self._i_alt = min(max(self._i_alt + err * dt, -2.0), 2.0)
        throttle = 0.45 + 0.08 * err - 0.12 * climb + 0.05 * self._i_alt
        roll, pitch, _ = s.attitude
        p, q, r = s.gyro
        roll_cmd = -0.4 * roll - 0.08 * p
        pitch_cmd = -0.4 * pitch - 0.08 * q
        yaw_cmd = -0.1 * r
        out = []
        for k in range(4):
            u = throttle + roll_cmd * _ROLL[k] + pitch_cmd * _PITCH[k] + yaw_cmd * _YAW[k]
            out.append(round(1000 + 1000 * min(max(u, 0.0), 1.0)))
        return tuple(out)


class _GyroRate:
    """ArduPilot's SITL gyro: a sample whenever the clock has passed the next 1 ms mark (at most one
    per frame), and the backend's rate estimate (AP_InertialSensor_Backend::_update_sensor_rate:
    once a second, filtered 0.8/0.2 toward the observed rate, clamped to 0.5..2 times the estimate,
    while the sensors converge in the first 30 s; 0.98/0.02 within 0.95..1.05 after)."""

    SAMPLE_HZ = 1000

    def __init__(self) -> None:
        self.rate_hz = float(self.SAMPLE_HZ)
        self._next_us = 0.0
        self._count = 0
        self._start_us = 0.0

    def frame(self, now_us: float) -> None:
        if now_us < self._next_us:
            return
        period = 1e6 / self.SAMPLE_HZ
        if self._next_us == 0.0:
            self._next_us = now_us + period
        while now_us >= self._next_us:
            self._next_us += period
        self._sample(now_us)

    def _sample(self, now_us: float) -> None:
        if self._start_us == 0.0:
            self._count = 0
            self._start_us = now_us
            return
        self._count += 1
        if now_us - self._start_us <= 1e6:
            return
        observed = self._count * 1e6 / (now_us - self._start_us)
        converging = now_us < 30e6
        k, lo, hi = (0.8, 0.5, 2.0) if converging else (0.98, 0.95, 1.05)
        observed = min(max(observed, self.rate_hz * lo), self.rate_hz * hi)
        self.rate_hz = k * self.rate_hz + (1 - k) * observed
        self._count = 0
        self._start_us = now_us
