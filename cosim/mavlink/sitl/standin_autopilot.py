"""The stand-in firmwares' flight code when they speak MAVLink (`StandInFirmware(mavlink_port=...)`,
`StandInPx4(mavlink_port=...)`): the served ArduCopter or PX4 autopilot (cosim.mavlink.serve: modes,
arming, commands, missions, telemetry) flying through the firmware's simulator interface instead of
a simulated body of its own.

At every frame the state the physics answered (NED about the start, body FRD) is copied into a
one-copter QuadrotorBank that holds no dynamics of its own, the autopilot handles what arrived on its
MAVLink port and moves its targets on, and the bank's control loops turn them into four motor
outputs in quad X order (ArduCopter's and PX4's alike). Its MAVLink goes over the transport
the stand-in gives it, which behaves as that firmware's link does.
"""

from __future__ import annotations

import numpy as np

from cosim.mavlink.frames import GeoOrigin, yaw_to_heading
from cosim.mavlink.personality import Personality
from cosim.mavlink.serve.bodies import PreArm, QuadBody
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from cosim.mavlink.serve.vehicle_port import Transport
from cosim.mavlink.sitl.json_wire import State
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank

ON_GROUND_M = 0.01
"""Below this height above its start the copter stands on the ground (its land detector's view)."""


class StandInAutopilot:
    """`personality`'s autopilot as system `sysid` on `transport`, home at `home` facing `heading` (rad
    from east); `prearm` says why its sensors refuse to arm; `position_after_s` is how long after boot
    it has no position estimate."""

    def __init__(self, transport: Transport, personality: Personality, sysid: int, home: GeoOrigin, heading: float,
                 prearm: PreArm, position_after_s: float, airframe: str = "quad_1500g") -> None:
        self.bank = QuadrotorBank([AIRFRAMES[airframe]], np.zeros((1, 3)), np.array([heading]))
        self.bank.set_armed(0, False)
        self.body = QuadBody(self.bank, 0, prearm=prearm)
        self.port = transport
        self.endpoint = SimVehicleEndpoint(self.body, transport, personality, sysid, home,
                                           position_after_s=position_after_s)

    def frame(self, s: State, now: float, tick: float) -> tuple[int, int, int, int]:
        """The four motor outputs (PWM, us) for the state the physics answered at `now` (s since boot),
        one frame of `tick` seconds after the last."""
        b = self.bank
        if tick != b.tick:
            b.set_tick(tick)
        north, east, down = s.position
        b.pos[0] = (east, north, -down)
        vn, ve, vd = s.velocity
        b.vel[0] = (ve, vn, -vd)
        roll, pitch, yaw = s.attitude
        b.euler[0] = (roll, -pitch, yaw_to_heading(yaw))
        p, q, r = s.gyro
        b.rates[0] = (p, -q, -r)
        b.on_ground[0] = -down <= ON_GROUND_M
        b.t = now
        self.port.poll(now)
        b.control()
        return self.body.motor_outputs()

    @property
    def armed(self) -> bool:
        return bool(self.bank.armed[0])

    def close(self) -> None:
        self.port.close()
