"""Small controllers used by the controller API tests (importable by the scenario loader)."""

import os
import signal
from dataclasses import dataclass

import numpy as np

from controllers import Controller, GroupController, Message


class TimerProbe(Controller):
    """Records when its timers fire and what its rng and neighbours say."""

    period = None

    def setup(self):
        self.every(0.25, lambda: self.record("every", self.now), phase=0.1)
        self.after(0.33, lambda: self.record("after", self.now))
        self.every(1.0, lambda: self.record("random_phase", self.now))
        self.record("rng", float(self.rng.random()))
        if self.id == 0:
            self.every(0.5, lambda: self.net.broadcast(b"hello"), phase=0.05)
        self.after(1.9, self._look)

    def _look(self):
        for n in self.net.neighbors():
            self.record(f"range_to_{n.id}", n.range_m)
            self.record(f"bearing_to_{n.id}", n.bearing)


class Exploder(Controller):
    """Raises in on_message at the node chosen by params (-1: any node that receives)."""

    @dataclass(frozen=True)
    class Params:
        victim: int = 1

    period = None

    def setup(self):
        if self.id == 0:
            self.after(0.7, lambda: self.net.broadcast(b"boom"))

    def on_message(self, msg: Message):
        if self.params.victim in (-1, self.id):
            raise ZeroDivisionError("controller bug")


class CtrlC(Controller):
    """Simulates the user pressing Ctrl-C at t = 1.25 s."""

    period = None

    def setup(self):
        if self.id == 0:
            self.after(1.25, self._press)

    def _press(self):
        os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C sends; the run's handler turns it into KeyboardInterrupt


class Ns3Fatal(Controller):
    """Makes ns-3 call NS_FATAL_ERROR at t = 0.25 s (which aborts the process it runs in)."""

    period = None

    def setup(self):
        if self.id == 0:
            self.after(0.25, self._fatal)

    def _fatal(self):
        from netstack.ns3.loader import load

        ns, _ = load()
        ns.Config.SetDefault("ns3::NoSuchModel::Attribute", ns.StringValue("1"))


class QuadCruise(Controller):
    """Take off to `altitude`, then cruise along +x at `speed` (ground speed + altitude + heading 0)."""

    @dataclass(frozen=True)
    class Params:
        speed: float = 1.0
        altitude: float = 2.0

    period = None

    def setup(self) -> None:
        self.robot.fly("speed_altitude_heading", 0.0, 0.0, self.params.altitude, 0.0)
        self.after(2.0, lambda: self.robot.fly("speed_altitude_heading", self.params.speed, 0.0, self.params.altitude, 0.0))


class Drive(Controller):
    """Hold a wheel command: (v, w) or (left, right) wheel speeds, from t = 0."""

    @dataclass(frozen=True)
    class Params:
        v: float | None = None
        w: float = 0.0
        left: float | None = None
        right: float | None = None

    period = None

    def setup(self) -> None:
        p = self.params
        if p.left is not None:
            self.robot.set_wheel_speeds(p.left, p.right)
        else:
            self.robot.drive(p.v, p.w)


class GoTo(Controller):
    """Fly to `offset` (x, y, z metres from where the controller starts), heading `heading`."""

    @dataclass(frozen=True)
    class Params:
        offset: tuple[float, float, float] = (1.0, 0.0, 2.0)
        heading: float = 0.0

    period = 0.5

    def setup(self) -> None:
        self.start = self.robot.position.copy()
        self.steps = 0

    def step(self) -> None:
        x, y, z = self.params.offset
        self.robot.fly("position", self.start[0] + x, self.start[1] + y, z, self.params.heading)
        self.steps += 1


class Strider(Controller):
    """Walks east at 2 m/s and records its x position every second."""

    period = None

    def setup(self):
        self.robot.set_velocity(2.0)
        self.every(1.0, lambda: self.record("x", float(self.robot.position[0])))


class StepResponse(Controller):
    """Position steps: up to `altitude` at t = 0, then `lateral` metres along +x at `move_at` seconds."""

    @dataclass(frozen=True)
    class Params:
        altitude: float = 5.0
        lateral: float = 3.0
        move_at: float = 6.0

    period = None

    def setup(self) -> None:
        x, y, _ = self.robot.position
        p = self.params
        self.robot.fly("position", float(x), float(y), p.altitude, 0.0)
        self.after(p.move_at, lambda: self.robot.fly("position", float(x) + p.lateral, float(y), p.altitude, 0.0))


class RollKick(Controller):
    """Take off to 2 m, then at 3 s command a roll of `roll` radians in attitude mode (hover thrust)."""

    @dataclass(frozen=True)
    class Params:
        roll: float = 1.2

    period = None

    def setup(self) -> None:
        self.robot.fly("position", 0.0, 0.0, 2.0, 0.0)
        self.after(3.0, self._kick)

    def _kick(self) -> None:
        self.robot.fly("attitude", self.params.roll, 0.0, 0.0, 1.2 * 0.027 * 9.81)


class Land(Controller):
    """Take off to 2 m, then from 4 s descend at `sink` m/s until on the ground."""

    @dataclass(frozen=True)
    class Params:
        sink: float = 0.5

    period = None

    def setup(self) -> None:
        self.robot.fly("position", 0.0, 0.0, 2.0, 0.0)
        self.after(4.0, lambda: self.robot.fly("speed_vertical", 0.0, 0.0, -self.params.sink))


class Slide(Controller):
    """Hold a body-frame velocity (vx, vy) and a heading, through the generic commands."""

    @dataclass(frozen=True)
    class Params:
        vx: float = 0.0
        vy: float = 0.3
        heading: float = 0.0

    period = None

    def setup(self) -> None:
        self.robot.set_heading(self.params.heading)
        self.robot.set_velocity(self.params.vx, self.params.vy)


class FlyMode(Controller):
    """Take off to 2 m over the start (position mode), then at `at` seconds fly `mode` with (a, b, c, d);
    `attitudes` holds the attitude every 10 ms from then on."""

    @dataclass(frozen=True)
    class Params:
        mode: str = "speed_vertical"
        a: float = 0.0
        b: float = 0.0
        c: float = 0.0
        d: float | None = None
        at: float = 4.0

    period = None

    def setup(self) -> None:
        x, y, _ = self.robot.position
        p = self.params
        self.attitudes: list[tuple[float, float, float]] = []
        self.robot.fly("position", float(x), float(y), 2.0, 0.0)
        self.after(p.at, self._switch)

    def _switch(self) -> None:
        p = self.params
        self.robot.fly(p.mode, p.a, p.b, p.c, p.d)
        self.every(0.01, lambda: self.attitudes.append(self.robot.attitude))


class Command(Controller):
    """Calls one Robot method at t = 0.1 s (`then`, a second one, right after) and records the pose."""

    @dataclass(frozen=True)
    class Params:
        method: str = "set_heading"
        args: tuple[float, ...] = ()
        then: str | None = None
        then_args: tuple[float, ...] = ()
        mode: str | None = None  # fly's mode, before args
        repeat: bool = False  # command again at every step (a MAVLink adapter holds a vehicle whose commands stop)

    period = 0.1

    def setup(self) -> None:
        self.after(0.1, self._command)
        self.commanded = False

    def _command(self) -> None:
        p = self.params
        self.commanded = True
        for method, args in ((p.method, p.args), (p.then, p.then_args)):
            if method is not None:
                getattr(self.robot, method)(*(((p.mode,) if method == "fly" else ()) + tuple(args)))

    def step(self) -> None:
        if self.params.repeat and self.commanded:
            self._command()
        v = self.robot.velocity
        self.record("heading", self.robot.heading)
        self.record("vx", float(v[0]))
        self.record("vy", float(v[1]))


class SyncBroadcasters(GroupController):
    """Robots that stand still; every tick a seeded `fraction` of them broadcast `size` bytes at the
    same instant (what a group controller's sends are), so frames start together and collide."""

    @dataclass(frozen=True)
    class Params:
        fraction: float = 0.2
        size: int = 100

    period = 0.1

    def step(self) -> None:
        g = self.group
        due = np.nonzero(self.rng.random(g.n) < self.params.fraction)[0]
        if len(due):
            g.broadcast(due, bytes(self.params.size))


class Unicaster(Controller):
    """Robot 0 sends `count` unicasts of 50 bytes to each of `targets`, one every 0.2 s from 0.5 s."""

    @dataclass(frozen=True)
    class Params:
        targets: tuple[int, ...] = ()
        count: int = 3

    period = None

    def setup(self) -> None:
        if self.id == 0:
            for k in range(self.params.count):
                for j, dst in enumerate(self.params.targets):
                    self.after(0.5 + 0.2 * k + 0.05 * j, lambda dst=dst: self.net.send(dst, bytes(50)))


class RecordingBeacon(Controller):
    """Each robot broadcasts 20 bytes once a second at its own phase and records every message's RSSI
    and SNR by sender (`rssi_from_<src>`, `snr_from_<src>`)."""

    period = None

    def setup(self) -> None:
        self.every(1.0, lambda: self.net.broadcast(bytes(20)), phase=0.1 + 0.3 * self.id)

    def on_message(self, msg: Message) -> None:
        self.record(f"rssi_from_{msg.src}", msg.rssi_dbm)
        self.record(f"snr_from_{msg.src}", msg.snr_db)
