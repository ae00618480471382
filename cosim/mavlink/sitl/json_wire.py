"""ArduPilot's JSON SITL interface, both sides of the wire, written from ArduPilot's published
description of it (libraries/SITL/examples/JSON/readme.md in ArduPilot's source).

The firmware (`arducopter --model JSON:127.0.0.1`) sends, for every physics frame, a binary servo
packet to UDP port 9002 (9002 + 10 k for instance `-I k`): little-endian uint16 magic 18458,
uint16 frame rate (Hz), uint32 frame count, uint16 pwm[16] (magic 29569 and pwm[32] with
SERVO_32_ENABLE). The physics answers to the sender's address with one JSON object, preceded and
followed by a newline: timestamp (s, absolute physics time), imu.gyro (rad/s, body FRD),
imu.accel_body (m/s^2, body FRD, specific force: (0, 0, -9.81) at rest), position (m, NED),
velocity (m/s, NED) and attitude (roll, pitch, yaw, rad). The firmware does not advance until it
has an answer with a newer timestamp (lock-step); a frame it sends again with the same count is a
resend after a lost answer, and a count that goes back means the firmware restarted.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass

MAGIC_16 = 18458
MAGIC_32 = 29569
_HEAD = struct.Struct("<HHI")
PORT = 9002
"""The physics side listens here; firmware instance k (`-I k`) sends to PORT + 10 k."""
QUAD_X_ROTORS = (3, 1, 0, 2)
"""ArduCopter's quad X motors 1..4 (front-right, back-left, front-left, back-right) as rotor indices
of physics.bodies.quadrotor (front-left, back-left, back-right, front-right)."""
MANDATORY = ("timestamp", "imu", "position", "velocity")


@dataclass(frozen=True)
class ServoFrame:
    """One servo packet: the firmware's frame rate (Hz), its frame counter and the PWM outputs (us)."""

    frame_rate: int
    frame_count: int
    pwm: tuple[int, ...]

    def pack(self) -> bytes:
        magic = MAGIC_16 if len(self.pwm) == 16 else MAGIC_32
        return _HEAD.pack(magic, self.frame_rate, self.frame_count) + struct.pack(f"<{len(self.pwm)}H", *self.pwm)


def parse_servo(data: bytes) -> ServoFrame | None:
    """A servo packet, or None for anything else (wrong size or magic)."""
    if len(data) < _HEAD.size:
        return None
    magic, rate, count = _HEAD.unpack_from(data)
    channels = {MAGIC_16: 16, MAGIC_32: 32}.get(magic)
    if channels is None or len(data) != _HEAD.size + 2 * channels:
        return None
    return ServoFrame(rate, count, struct.unpack_from(f"<{channels}H", data, _HEAD.size))


def quad_thrusts(frame: ServoFrame, max_thrust: float) -> list[float]:
    """Rotor thrusts (N, physics.bodies.quadrotor's rotor order) from a quad X's PWM: throttle
    (pwm - 1000) / 1000 clipped to [0, 1], thrust proportional to it."""
    out = [0.0] * 4
    for motor, rotor in enumerate(QUAD_X_ROTORS):
        throttle = min(max((frame.pwm[motor] - 1000) / 1000.0, 0.0), 1.0)
        out[rotor] = throttle * max_thrust
    return out


@dataclass(frozen=True)
class State:
    """What the physics answers: SI units, NED and body FRD as the firmware expects."""

    timestamp: float
    gyro: tuple[float, float, float]
    accel_body: tuple[float, float, float]
    position: tuple[float, float, float]
    velocity: tuple[float, float, float]
    attitude: tuple[float, float, float]

    def encode(self) -> bytes:
        values = [self.timestamp, *self.gyro, *self.accel_body, *self.position, *self.velocity, *self.attitude]
        return state_text([float(x) for x in values])


_TEXT = ('\n{"timestamp":%r,"imu":{"gyro":[%r,%r,%r],"accel_body":[%r,%r,%r]},"position":[%r,%r,%r],'
         '"velocity":[%r,%r,%r],"attitude":[%r,%r,%r]}\n')


def state_text(values: list[float]) -> bytes:
    """An answer's text from its 16 Python floats (timestamp, gyro, specific force, position, velocity, attitude):
    what json.dumps writes, which is repr for finite floats, at a third of its cost; json.dumps itself
    when a number is not finite (it writes NaN and Infinity)."""
    if math.isfinite(sum(values)):  # a NaN or an infinity makes the sum so (as may an overflow: json then)
        return (_TEXT % tuple(values)).encode()
    gyro, accel, position, velocity, attitude = (values[k:k + 3] for k in range(1, 16, 3))
    body = {"timestamp": values[0], "imu": {"gyro": gyro, "accel_body": accel}, "position": position,
            "velocity": velocity, "attitude": attitude}
    return b"\n" + json.dumps(body, separators=(",", ":")).encode() + b"\n"


def parse_state(data: bytes) -> State:
    """The physics' answer, checked as the firmware checks it (ValueError naming what is missing)."""
    text = data.decode()
    if not (text.startswith("\n") and text.endswith("\n")):
        raise ValueError("a JSON SITL answer is preceded and followed by a newline")
    obj = json.loads(text)
    missing = [k for k in MANDATORY if k not in obj] + [f"imu.{k}" for k in ("gyro", "accel_body") if k not in obj.get("imu", {})]
    if "attitude" not in obj and "quaternion" not in obj:
        missing.append("attitude or quaternion")
    if missing:
        raise ValueError(f"JSON SITL answer without {', '.join(missing)}")
    return State(float(obj["timestamp"]), tuple(obj["imu"]["gyro"]), tuple(obj["imu"]["accel_body"]),
                 tuple(obj["position"]), tuple(obj["velocity"]), tuple(obj["attitude"]))
