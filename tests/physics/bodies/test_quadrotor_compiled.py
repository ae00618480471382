"""The compiled quadrotor tick (physics.bodies.quadrotor_compiled) does exactly what the numpy reference
(tests/physics/bodies/quadrotor_reference.py) does, bit for bit, in every mode, with mixed airframes,
wind, dead, disarmed and grounded vehicles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physics.bodies.quadrotor import AIRFRAMES, Mode, QuadrotorBank
from physics.bodies.quadrotor_compiled import GEAR_DECEL_M_S2, GEAR_MAX_SINK_M_S
from physics.scene.wind import Wind
from tests.physics.bodies.quadrotor_reference import NumpyQuadrotors

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

STATE = ("pos", "vel", "euler", "rates", "rotor", "on_ground", "_i_vel", "_i_rate")


def _fleet(shared: bool, seed: int, compiled: bool) -> QuadrotorBank:
    rng = np.random.default_rng(seed)
    n = 40
    frames = [AIRFRAMES["quad_1500g"] if shared or i % 3 else AIRFRAMES["crazyflie"] for i in range(n)]
    pos = np.column_stack([rng.uniform(-20, 20, (n, 2)), rng.choice([0.0, 0.5, 3.0], n)])
    bank = (QuadrotorBank if compiled else NumpyQuadrotors)(frames, pos, headings=rng.uniform(-math.pi, math.pi, n))
    bank.forces.append(Wind((2.0, -1.0, 0.0), 0.8, 0.5, n, np.random.default_rng(seed + 1), bank.tick))
    for i in range(n):
        mode = Mode(i % 7)
        a, b, c, d = rng.normal(0, 3, 4)
        if mode == Mode.ATTITUDE:
            a, b, c, d = rng.normal(0, 0.2), rng.normal(0, 0.2), rng.normal(0, 1), abs(d) * 5 + 5
        if mode == Mode.MOTORS:
            a, b, c, d = rng.uniform(0, 6, 4)
        bank.command(i, mode, a, b, abs(c) if mode in (Mode.SPEED_ALTITUDE, Mode.POSITION) else c,
                     math.nan if i % 5 == 0 else d)
    bank.alive[::11] = False
    bank.set_armed(7, False)
    return bank


def _fly(compiled: bool, shared: bool, seed: int) -> QuadrotorBank:
    bank = _fleet(shared, seed, compiled)
    rng = np.random.default_rng(seed + 2)
    for step in range(600):
        if step == 300:  # commands change mid-flight: modes are re-summarised
            for i in rng.choice(bank.n, 8, replace=False):
                bank.command(int(i), Mode(int(rng.integers(0, 7))), *rng.normal(0, 2, 3), float(rng.normal(0, 2)))
        if step == 450:
            bank.set_tick(0.001)
        bank.step()
    return bank


@pytest.mark.parametrize("shared", [True, False], ids=["one airframe", "mixed airframes"])
def test_compiled_tick_is_numpys_bit_for_bit(shared):
    a = _fly(False, shared, 5)
    b = _fly(True, shared, 5)
    for name in STATE:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x.view(np.uint8), y.view(np.uint8)), name
    assert a.on_ground.any() and not a.on_ground.all()  # grounded and flying vehicles were both compared
    assert np.isfinite(a.pos).all() and a.t == b.t


def test_compiled_control_alone_gives_numpys_wrench():
    """control() is what a rigid-body world (pybullet) calls; it must agree on its own too."""
    out = []
    for compiled in (False, True):
        bank = _fleet(False, 9, compiled)
        out.append([bank.control().copy() for _ in range(3)] + [bank.rotor.copy()])
    assert all(np.array_equal(x.view(np.uint8), y.view(np.uint8)) for x, y in zip(*out))


def test_a_copter_resting_on_the_ground_neither_tips_nor_turns_until_its_thrust_lifts_it():
    """The ground bears a landed copter: spun or tilted there (motors commanded unevenly, or stopped
    while it was turning), it stays level and keeps its heading; once its thrust exceeds its weight
    it leaves the ground and turns freely."""
    bank = QuadrotorBank([AIRFRAMES["quad_1500g"]] * 2, np.zeros((2, 3)), headings=np.array([0.3, 0.3]))
    bank.rates[:] = (0.5, -0.4, 2.0)
    bank.euler[:, :2] = (0.2, -0.1)
    weak = bank.mass[0] * 9.81 / 4 * 0.8
    bank.command(0, Mode.MOTORS, weak * 1.3, weak * 0.7, weak * 1.3, weak * 0.7)  # a yaw torque, no lift
    bank.command(1, Mode.MOTORS, *(bank.max_rotor[1] * np.array([0.9, 0.7, 0.9, 0.7])))  # lift and yaw
    for _ in range(120):
        bank.step()
    assert bank.on_ground[0] and bank.pos[0, 2] == 0.0
    assert bank.rates[0].tolist() == [0.0, 0.0, 0.0] and bank.euler[0].tolist() == [0.0, 0.0, 0.3]
    assert bank.pos[1, 2] > 0.05 and abs(bank.rates[1, 2]) > 0.1 and bank.euler[1, 2] != 0.3


def _touchdown(speed: float) -> tuple[float, float]:
    """A copter sinking onto the ground at `speed` m/s, its thrust just under its weight: the hardest
    deceleration in any tick (m/s²) and how long the ground took to stop it (s)."""
    bank = QuadrotorBank([AIRFRAMES["quad_1500g"]], np.array([[0.0, 0.0, 0.01]]))
    bank.set_tick(0.001)
    bank.vel[0, 2] = -speed
    bank.command(0, Mode.MOTORS, *([bank.mass[0] * 9.81 / 4 * 0.95] * 4))
    hardest, touched, stopped = 0.0, None, None
    for k in range(200):
        before = bank.vel[0, 2]
        bank.step()
        hardest = max(hardest, (bank.vel[0, 2] - before) / bank.tick)
        if bank.on_ground[0] and touched is None:
            touched = k
        if touched is not None and stopped is None and bank.vel[0, 2] >= 0.0:
            stopped = k
        assert bank.pos[0, 2] >= 0.0
    return hardest, (stopped - touched) * bank.tick


def test_a_touchdown_is_stopped_by_sprung_legs_not_in_one_tick():
    """An accelerometer must feel a landing as a real IMU does (a few g over tens of ms): a one-tick stop
    at 0.7 m/s is 70 g at 1 kHz, beyond PX4's 16 g range, with which real PX4 lost the stop and believed
    the copter still descended. A crash, faster than the gear takes, still stops at once."""
    hardest, stop_s = _touchdown(0.7)
    assert GEAR_DECEL_M_S2 - 1.0 < hardest <= GEAR_DECEL_M_S2 and 0.02 <= stop_s <= 0.03
    hardest, stop_s = _touchdown(GEAR_MAX_SINK_M_S - 0.1)
    assert hardest <= GEAR_DECEL_M_S2 + 1.0 and 0.09 <= stop_s <= 0.1  # (air drag slows it a little too)
    hardest, stop_s = _touchdown(10.0)
    assert hardest > 9_000.0 and stop_s == 0.0
