"""Quadrotor dynamics and cascaded PID: the step responses the robots issue asks for, for both presets."""

import math

import numpy as np
import pytest

from physics.bodies.quadrotor import AIRFRAMES, Mode, QuadrotorBank
from physics.scene.wind import Wind

TICK = 0.0025
PRESETS = sorted(AIRFRAMES)


def hovering(preset: str, z: float = 2.0) -> QuadrotorBank:
    """One vehicle taken off from the ground and settled at altitude z, heading 0."""
    bank = QuadrotorBank([AIRFRAMES[preset]], np.array([[0.0, 0.0, 0.0]]))
    bank.command(0, Mode.SPEED_ALT_HEADING, 0.0, 0.0, z, 0.0)
    bank.run(6.0)
    assert abs(bank.pos[0, 2] - z) < 0.02
    return bank


def trace(bank: QuadrotorBank, seconds: float, what) -> tuple[np.ndarray, np.ndarray]:
    t, values = [], []
    for k in range(round(seconds / TICK)):
        bank.step()
        t.append((k + 1) * TICK)
        values.append(what(bank))
    return np.array(t), np.array(values)


def settling_time(t: np.ndarray, x: np.ndarray, target: float, band: float) -> float:
    outside = np.nonzero(np.abs(x - target) > band)[0]
    return 0.0 if len(outside) == 0 else float(t[outside[-1]])


@pytest.mark.parametrize("preset", PRESETS)
def test_altitude_step_of_one_metre_settles_within_two_seconds_with_little_overshoot(preset):
    bank = hovering(preset, 2.0)
    bank.command(0, Mode.SPEED_ALT_HEADING, 0.0, 0.0, 3.0, 0.0)
    t, z = trace(bank, 4.0, lambda b: b.pos[0, 2])
    assert (z.max() - 3.0) / 1.0 < 0.10
    assert settling_time(t, z, 3.0, 0.05) < 2.0


@pytest.mark.parametrize("preset", PRESETS)
def test_ground_speed_of_one_metre_per_second_is_tracked_within_five_percent_after_two_seconds(preset):
    bank = hovering(preset)
    bank.command(0, Mode.SPEED_ALT_HEADING, 1.0, 0.0, 2.0, 0.0)
    t, vx = trace(bank, 6.0, lambda b: b.vel[0, 0])
    assert np.all(np.abs(vx[t >= 2.0] - 1.0) <= 0.05)


@pytest.mark.parametrize("preset", PRESETS)
def test_ground_speed_is_in_the_heading_frame(preset):
    bank = hovering(preset)
    bank.command(0, Mode.SPEED_ALT_HEADING, 0.0, 0.0, 2.0, math.pi / 2)
    bank.run(3.0)
    bank.command(0, Mode.SPEED_ALT_HEADING, 1.0, 0.0, 2.0, math.pi / 2)
    bank.run(4.0)
    assert bank.vel[0, 1] == pytest.approx(1.0, abs=0.05) and abs(bank.vel[0, 0]) < 0.05


@pytest.mark.parametrize("preset", PRESETS)
def test_heading_step_of_ninety_degrees_settles_within_two_seconds(preset):
    bank = hovering(preset)
    bank.command(0, Mode.SPEED_ALT_HEADING, 0.0, 0.0, 2.0, math.pi / 2)
    t, yaw = trace(bank, 4.0, lambda b: b.euler[0, 2])
    assert settling_time(t, yaw, math.pi / 2, math.radians(2.0)) < 2.0
    assert yaw.max() - math.pi / 2 < math.radians(9.0)


@pytest.mark.parametrize("preset", PRESETS)
def test_hover_holds_within_five_centimetres_for_ten_seconds_without_wind(preset):
    bank = hovering(preset, 1.0)
    bank.command(0, Mode.POSITION, 0.0, 0.0, 1.0, 0.0)
    _, pos = trace(bank, 10.0, lambda b: b.pos[0].copy())
    assert np.linalg.norm(pos - [0.0, 0.0, 1.0], axis=1).max() < 0.05


@pytest.mark.parametrize("preset", PRESETS)
def test_position_mode_flies_to_a_point(preset):
    bank = hovering(preset)
    bank.command(0, Mode.POSITION, 5.0, -3.0, 4.0, 1.0)
    bank.run(12.0)
    assert np.linalg.norm(bank.pos[0] - [5.0, -3.0, 4.0]) < 0.1
    assert bank.euler[0, 2] == pytest.approx(1.0, abs=0.02)


def test_attitude_mode_tracks_roll_and_the_thrust_vector_follows():
    bank = hovering("crazyflie")
    af = AIRFRAMES["crazyflie"]
    bank.command(0, Mode.ATTITUDE, math.radians(10.0), 0.0, 0.0, af.mass * 9.81 / math.cos(math.radians(10.0)))
    t, roll = trace(bank, 1.0, lambda b: b.euler[0, 0])
    assert abs(roll[t >= 0.5] - math.radians(10.0)).max() < math.radians(1.0)
    assert bank.vel[0, 1] < -0.5  # positive roll tips the thrust towards -y
    assert abs(bank.vel[0, 2]) < 0.2  # the tilted thrust still carries the weight


def test_a_steady_wind_is_resisted_by_leaning_into_it():
    bank = hovering("quad_1500g")
    bank.forces.append(Wind((3.0, 0.0, 0.0), 0.0, 1.0, 1, np.random.default_rng(1), TICK))
    bank.command(0, Mode.POSITION, 0.0, 0.0, 2.0, 0.0)
    _, pos = trace(bank, 10.0, lambda b: b.pos[0].copy())
    assert pos[:, 0].max() > 0.02  # the gust front pushes it downwind first
    assert np.linalg.norm(pos[-400:] - [0.0, 0.0, 2.0], axis=1).max() < 0.05  # then it holds its point
    assert bank.euler[0, 1] < -math.radians(1.0)  # nose down into a +x wind: thrust tilted towards -x


def test_gusts_are_seeded():
    def run(seed):
        bank = hovering("crazyflie")
        bank.forces.append(Wind((0.0, 0.0, 0.0), 1.0, 0.5, 1, np.random.default_rng(seed), TICK))
        bank.run(2.0)
        return bank.pos[0].copy()

    assert np.array_equal(run(7), run(7)) and not np.array_equal(run(7), run(8))


def test_a_dead_vehicle_falls_and_stays_on_the_ground():
    bank = hovering("crazyflie", 1.0)
    bank.alive[0] = False
    t, z = trace(bank, 1.0, lambda b: b.pos[0, 2])
    fall_time = t[np.argmax(z <= 0.0)]
    assert fall_time == pytest.approx(math.sqrt(2 * 1.0 / 9.81), abs=0.05)
    assert z[-1] == 0.0


def test_many_vehicles_step_together_independently():
    af = AIRFRAMES["crazyflie"]
    bank = QuadrotorBank([af] * 3, np.array([[0, 0, 1.0], [5, 0, 1.0], [0, 5, 1.0]]))
    bank.command(0, Mode.SPEED_ALT_HEADING, 0.0, 0.0, 2.0, 0.0)
    bank.command(1, Mode.POSITION, 6.0, 1.0, 1.0, 0.0)
    bank.command(2, Mode.SPEED_VERTICAL, 0.0, 0.0, 0.5, math.nan)
    bank.run(6.0)
    assert bank.pos[0, 2] == pytest.approx(2.0, abs=0.05)
    assert np.linalg.norm(bank.pos[1] - [6.0, 1.0, 1.0]) < 0.05
    assert bank.vel[2, 2] == pytest.approx(0.5, abs=0.02)


def test_motors_mode_flies_an_outside_autopilots_rotor_thrusts():
    """Mode.MOTORS hands the four rotor thrusts to an outside autopilot (ArduPilot's JSON SITL):
    the weight shared equally hovers, more on the left rotors rolls the vehicle right (FLU roll > 0)."""
    a = AIRFRAMES["quad_1500g"]
    bank = QuadrotorBank([a, a], np.array([[0.0, 0.0, 5.0], [3.0, 0.0, 5.0]]))
    share = a.mass * 9.81 / 4
    bank.command(0, Mode.MOTORS, share, share, share, share)
    bank.command(1, Mode.MOTORS, share + 0.05, share + 0.05, share - 0.05, share - 0.05)  # FL, BL up; BR, FR down
    bank.run(0.5)
    assert bank.rotor[0] == pytest.approx([share] * 4) and bank.pos[0, 2] == pytest.approx(5.0, abs=1e-6)
    assert bank.euler[1, 0] > 0.1 and abs(bank.euler[1, 1]) < 1e-6
    bank.command(0, Mode.MOTORS, 100.0, -1.0, math.nan, share)  # beyond the rotors' range: clipped
    bank.step()
    assert bank.rotor[0].tolist() == [a.max_rotor_thrust, 0.0, 0.0, share]
