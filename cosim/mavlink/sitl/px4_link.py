"""One PX4 SITL instance in lock-step over its simulator interface (cosim.mavlink.sitl.px4_wire): the run
listens on TCP host:port, PX4's `simulator_mavlink` connects, and at every control tick the run sends
the vehicle's sensors (HIL_SENSOR; HIL_GPS every GPS_PERIOD_US) stamped with the simulated time, which
is PX4's clock, and takes the HIL_ACTUATOR_CONTROLS that answers them (PX4 stamps it with the time of
the sensors it answers). As PX4's own simulators do, the run waits for that answer only once PX4 has
answered at all: PX4 starts its modules on the wall clock and answers its first sensors only once its
outputs run. Until then its motors stand still, as they would (PX4 does not arm while starting)."""

from __future__ import annotations

import socket
from collections import deque

from pymavlink.dialects.v20 import common as mav

GPS_PERIOD_US = 100_000
"""HIL_GPS every 0.1 s of simulated time (10 Hz)."""


class Px4Link:
    """PX4's side of one vehicle: a listening socket bound now (a busy port fails before the run)."""

    def __init__(self, host: str, port: int) -> None:
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.server.bind((host, port))
        except OSError:
            self.server.close()
            raise
        self.server.listen(1)
        self.port = port
        self.conn: socket.socket | None = None
        self.parser = mav.MAVLink(None)
        self.parser.robust_parsing = True
        self.encoder = mav.MAVLink(None, srcSystem=1, srcComponent=51)
        self.pending: deque[tuple[int, list[float], bool]] = deque()
        self.next_gps_us = 0
        self.stats = {"sensors": 0, "controls": 0, "gps": 0}

    def connect(self, timeout_s: float) -> None:
        """Wait (up to `timeout_s` of wall time) for PX4 to connect."""
        self.server.settimeout(timeout_s)
        try:
            self.conn, _ = self.server.accept()
        except TimeoutError:
            raise RuntimeError(f"PX4 did not connect to tcp {self.server.getsockname()[0]}:{self.port} within "
                               f"{timeout_s:g} s (is `px4` running with PX4_SIM_MODEL=none_iris, instance "
                               f"{self.port - 4560 if self.port >= 4560 else '?'}?)") from None
        self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, sensor: object, gps: object | None) -> None:
        """The sensors of one tick (and a GPS fix when one is due)."""
        data = sensor.pack(self.encoder)
        self.stats["sensors"] += 1
        if gps is not None:
            data += gps.pack(self.encoder)
            self.stats["gps"] += 1
        self.conn.sendall(data)

    def gps_due(self, time_us: int) -> bool:
        if time_us < self.next_gps_us:
            return False
        self.next_gps_us = time_us + GPS_PERIOD_US
        return True

    def controls(self, time_us: int, timeout_s: float) -> tuple[list[float], bool] | None:
        """The HIL_ACTUATOR_CONTROLS that answers the sensors of `time_us` (PX4 stamps it with its clock,
        which that message set): its 16 outputs and whether PX4 is armed. Before PX4's first answer,
        only what has come (None: PX4 is still starting); after it, waited for up to `timeout_s`."""
        while True:
            while self.pending:
                stamp, controls, armed = self.pending.popleft()
                if stamp == time_us:
                    return controls, armed
            if not self._read(timeout_s if self.stats["controls"] else 0.0, time_us):
                return None

    def _read(self, timeout_s: float, time_us: int) -> bool:
        """Take what PX4 sent (waiting up to `timeout_s`); False if nothing came and nothing is awaited."""
        self.conn.settimeout(timeout_s if timeout_s > 0 else None)
        if timeout_s <= 0:
            self.conn.setblocking(False)
        try:
            data = self.conn.recv(65536)
        except BlockingIOError:
            return False
        except TimeoutError:
            raise RuntimeError(f"PX4 on tcp port {self.port} did not answer the sensors of t = {time_us} us within "
                               f"{timeout_s:g} s ({self.stats['controls']} answered before)") from None
        if not data:
            raise RuntimeError(f"PX4 on tcp port {self.port} closed its simulator connection")
        for msg in self.parser.parse_buffer(data) or []:
            if msg.get_type() == "HIL_ACTUATOR_CONTROLS":
                self.stats["controls"] += 1
                self.pending.append((msg.time_usec, list(msg.controls), bool(msg.mode & mav.MAV_MODE_FLAG_SAFETY_ARMED)))
        return True

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.server.close()
