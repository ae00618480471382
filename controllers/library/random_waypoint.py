"""Random waypoint mobility, the usual model of MANET routing studies (as in ns-2 and the AntHocNet papers)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from controllers import Controller


class RandomWaypoint(Controller):
    """Pause, then fly straight to a uniformly drawn point of `area` at a uniformly drawn speed in
    [speed_min, speed_max], pause again, and so on. Times in seconds, speeds in m/s; the altitude
    stays where the robot started. Driven by timers at the exact departure and arrival times."""

    @dataclass(frozen=True)
    class Params:
        area: tuple[float, float, float, float] = (0.0, 0.0, 100.0, 100.0)
        """x_min, y_min, x_max, y_max of the waypoints (m)."""
        speed_min: float = 1.0
        speed_max: float = 20.0
        pause: float = 30.0
        start_paused: bool = True
        """Begin with a pause (ns-2's convention) rather than a move."""

        def __post_init__(self) -> None:
            x0, y0, x1, y1 = self.area
            if not (x0 < x1 and y0 < y1):
                raise ValueError(f"area must be [x_min, y_min, x_max, y_max] with min < max, got {list(self.area)}")
            if not 0 < self.speed_min <= self.speed_max:
                raise ValueError(f"need 0 < speed_min <= speed_max, got {self.speed_min} and {self.speed_max}")
            if self.pause < 0:
                raise ValueError(f"pause must be >= 0 s, got {self.pause}")

    period = None

    def setup(self) -> None:
        self.robot.hover()
        self.legs = 0
        self.target: tuple[float, float] | None = None
        self.rest_miss_m = 0.0  # where the last leg ended, from its waypoint (commands latch at physics ticks)
        if self.params.start_paused and self.params.pause > 0:
            self.after(self.params.pause, self._depart)
        else:
            self._depart()

    def _depart(self) -> None:
        p = self.params
        x0, y0, x1, y1 = p.area
        tx = float(self.rng.uniform(x0, x1))
        ty = float(self.rng.uniform(y0, y1))
        speed = float(self.rng.uniform(p.speed_min, p.speed_max))
        pos = self.robot.position
        if self.target is not None:
            self.rest_miss_m = math.hypot(self.target[0] - float(pos[0]), self.target[1] - float(pos[1]))
        dx = tx - float(pos[0])
        dy = ty - float(pos[1])
        self.target = (tx, ty)
        self.robot.set_heading(math.atan2(dy, dx))
        self.robot.set_velocity(speed, 0.0, 0.0)
        self.after(math.hypot(dx, dy) / speed, self._arrive)

    def _arrive(self) -> None:
        self.robot.hover()
        self.legs += 1
        self.after(self.params.pause, self._depart)
