"""A stand-in vehicle: one simulated quadrotor or rover served over MAVLink on its own, paced to the
wall clock, for trying ghost scenarios and ground stations without hardware (`cosim serve-vehicle`)."""

from __future__ import annotations

import threading

import numpy as np

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import PERSONALITIES
from cosim.mavlink.serve.bodies import QuadBody, RoverBody
from cosim.mavlink.serve.failsafe import GcsFailsafe
from cosim.mavlink.serve.realtime import DriveStepper, PacingStats, run_realtime
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from physics.bodies.diff_drive import DiffDriveBank, DriveSpec
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank


class StandInVehicle:
    """A vehicle at `position` (x, y, z about `origin`) answering on UDP host:port (0: a free port),
    and also sending to `out` (host, port) from the start if given. `position_after_s`: a cold start,
    with no position (GPS fix, EKF) for that long, as a vehicle just powered on.
    `start()` runs it in a thread; `stop()` ends it; `run(duration_s)` runs it in this thread."""

    def __init__(self, personality: str = "ardupilot", port: int = 0, host: str = "127.0.0.1",
                 origin: GeoOrigin | None = None, position: tuple[float, float, float] = (0.0, 0.0, 0.0),
                 heading: float = 0.0, airframe: str = "quad_1500g", sysid: int = 1, speed: float = 1.0,
                 signing_key: bytes | str | None = None, out: tuple[str, int] | None = None,
                 gcs_failsafe: GcsFailsafe | None = None, position_after_s: float = 0.0) -> None:
        if not position_after_s >= 0.0:
            raise ValueError(f"the cold start (--cold-start, position_after_s) is >= 0 s, got {position_after_s}")
        p = PERSONALITIES[personality]
        at = np.array([position], dtype=float)
        if p.vehicle == "rover":
            self.model = DriveStepper(DiffDriveBank([DriveSpec()], at, np.array([heading])))
            body = RoverBody(self.model.drives, 0)
        else:
            if airframe not in AIRFRAMES:
                raise ValueError(f"unknown airframe {airframe!r}; expected one of: {', '.join(sorted(AIRFRAMES))}")
            self.model = QuadrotorBank([AIRFRAMES[airframe]], at, np.array([heading]))
            body = QuadBody(self.model, 0)
        self.body = body
        self.endpoint = SimVehicleEndpoint(body, port, p, sysid, origin or GeoOrigin(), host, signing_key, gcs_failsafe,
                                           position_after_s)
        self.port = self.endpoint.port
        if out is not None:
            self.endpoint.transport.add_peer(*out)
        self.speed = speed
        self.stats: PacingStats | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run(self, duration_s: float = 1e9) -> PacingStats:
        self.stats = run_realtime(self.model, [self.endpoint], duration_s, speed=self.speed, stop=self._stop)
        return self.stats

    def start(self) -> StandInVehicle:
        self._thread = threading.Thread(target=self.run, name=f"standin-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.endpoint.close()

    def __enter__(self) -> StandInVehicle:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
