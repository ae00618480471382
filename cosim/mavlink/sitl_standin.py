"""A stand-in for ArduPilot firmware on its side of the JSON SITL interface, for tests and for
trying a `mavlink.sitl` scenario without an ArduPilot build. It speaks the protocol as the firmware
does (cosim.mavlink.sitl_json): servo packets with magic 18458, its frame rate and a frame count
that goes up by one per answered frame; it waits for an answer with a newer timestamp, checks the
mandatory fields, and sends the same frame again (same count) when no answer comes within
`resend_after_s`; `restart()` starts the count again from 0, as a restarted firmware does.

Its flight code is a small quad X controller (climb to `altitude` m, hold level, hold yaw) with
ArduCopter's motor order and mixing signs; it is not ArduPilot's and flies nothing else.
"""

from __future__ import annotations

import math
import socket
import threading

from cosim.mavlink.sitl_json import ServoFrame, State, parse_state

# ArduCopter's quad X: motors front-right (CCW), back-left (CCW), front-left (CW), back-right (CW)
_ROLL = (-0.5, 0.5, 0.5, -0.5)
_PITCH = (0.5, -0.5, 0.5, -0.5)
_YAW = (1.0, 1.0, -1.0, -1.0)


class StandInFirmware:
    """Sends to the physics at host:port from its own UDP socket; `start()` runs it in a thread."""

    def __init__(self, port: int, host: str = "127.0.0.1", altitude: float = 3.0, frame_rate: int = 400,
                 resend_after_s: float = 10.0, ignore_answers: tuple[int, ...] = (), restart_at: int | None = None) -> None:
        self.addr = (host, port)
        self.altitude, self.frame_rate, self.resend_after_s = altitude, frame_rate, resend_after_s
        self.ignore_answers = set(ignore_answers)  # frame counts whose first answer is "lost"
        self.restart_at = restart_at  # restart (once) on reaching this frame count
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, 0))
        self.states: list[State] = []
        self.errors: list[str] = []
        self.resends = 0
        self._count, self._restart = 0, False
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

    def restart(self) -> None:
        """The next frame counts from 0 again (a restarted firmware)."""
        self._restart = True

    def _run(self) -> None:
        pwm = (1000,) * 16
        last_ts = -math.inf
        while not self._stop.is_set():
            if self.restart_at is not None and self._count == self.restart_at:
                self.restart_at, self._restart = None, True
            if self._restart:  # a new firmware process: it knows no earlier timestamp
                self._count, self._restart, self._i_alt, last_ts = 0, False, 0.0, -math.inf
            frame = ServoFrame(self.frame_rate, self._count, pwm)
            state = self._exchange(frame, last_ts)
            if state is None:
                continue
            last_ts = state.timestamp
            self.states.append(state)
            pwm = self._fly(state) + (1000,) * 12
            self._count += 1

    def _exchange(self, frame: ServoFrame, last_ts: float) -> State | None:
        """Send `frame` (again after resend_after_s without an answer) until a newer state comes."""
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
            if state.timestamp > last_ts:
                return state  # an older one answers an earlier copy of a resent frame: the firmware waits on
        return None

    def _fly(self, s: State) -> tuple[int, ...]:
        """Four PWM outputs (us) in ArduCopter's motor order."""
        dt = 1.0 / self.frame_rate
        up, climb = -s.position[2], -s.velocity[2]
        err = self.altitude - up
        self._i_alt = min(max(self._i_alt + err * dt, -2.0), 2.0)
        throttle = 0.45 + 0.08 * err - 0.12 * climb + 0.05 * self._i_alt
        roll, pitch, _ = s.attitude
        p, q, r = s.gyro
        roll_cmd, pitch_cmd, yaw_cmd = -0.4 * roll - 0.08 * p, -0.4 * pitch - 0.08 * q, -0.1 * r
        out = []
        for k in range(4):
            u = throttle + roll_cmd * _ROLL[k] + pitch_cmd * _PITCH[k] + yaw_cmd * _YAW[k]
            out.append(round(1000 + 1000 * min(max(u, 0.0), 1.0)))
        return tuple(out)
