"""A minimal pymavlink ground station on UDP for the served-vehicle tests."""

import socket
import time

from pymavlink.dialects.v20 import common as mav

SPEED = 4.0  # simulated seconds per wall second of the served vehicles in these tests


class Client:
    """A minimal ground station: pymavlink's MAVLink 2 codec on a UDP socket, with a heartbeat
    about once per simulated second while it listens (as a real one has)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(0.05)
        self.addr = ("127.0.0.1", port)
        self.mav = mav.MAVLink(None, srcSystem=255, srcComponent=190)
        self.latest: dict[str, object] = {}
        self.backlog: list = []  # received since the last command, not yet waited for
        self.beating = True
        self._beat_t = -1.0

    def send(self, msg) -> None:
        self.sock.sendto(msg.pack(self.mav), self.addr)

    def beat(self) -> None:
        if self.beating and time.monotonic() - self._beat_t > 1.0 / SPEED:
            self._beat_t = time.monotonic()
            self.send(mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0, 3))

    def pump(self, seconds: float = 0.05) -> list:
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.beat()
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            for m in self.mav.parse_buffer(data) or []:
                self.latest[m.get_type()] = m
                out.append(m)
        self.backlog.extend(out)
        return out

    def wait(self, kind: str, cond=lambda m: True, timeout: float = 10.0):
        end = time.monotonic() + timeout
        while True:
            for k, m in enumerate(self.backlog):
                if m.get_type() == kind and cond(m):
                    del self.backlog[: k + 1]
                    return m
            self.backlog.clear()
            if time.monotonic() >= end:
                break
            self.beat()
            self.pump(0.1)
        raise AssertionError(f"no {kind} within {timeout} s (latest: {self.latest.get(kind)})")

    def stream_until(self, msg, kind: str, cond, timeout: float):
        """Send `msg` every 50 ms (a setpoint stream, which PX4 drops out of offboard without) until
        a `kind` message meets `cond`; return it."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.send(msg)
            for m in self.pump(0.05):
                if m.get_type() == kind and cond(m):
                    return m
        raise AssertionError(f"no {kind} within {timeout} s (latest: {self.latest.get(kind)})")

    def command(self, cmd: int, *params: float, sysid: int = 1):
        p = list(params) + [0.0] * (7 - len(params))
        self.backlog.clear()
        self.send(mav.MAVLink_command_long_message(sysid, 1, cmd, 0, *p))
        return self.wait("COMMAND_ACK", lambda m: m.command == cmd)
