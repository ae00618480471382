"""Quadrotors as pybullet rigid bodies: the same scenario flies the same in both worlds, walls stop
them physically, and the crash rule kills on a hard impact or a steep tilt."""

from __future__ import annotations

import re

import numpy as np
import pytest

import cosim
from cosim.assembly.simulation import build


def scenario(backend: str, controller: dict, **faults) -> dict:
    return {
        "name": "rigid", "seed": 1, "duration": 12.0, "quantum": "10 ms",
        "physics": {"backend": backend, "dt": "10 ms"},
        "network": {"backend": "none"},
        "world": {"arena_lower": [-20, -20, 0], "arena_upper": [20, 20, 10],
                  "obstacles": [{"center": [10.0, 0.0, 2.0], "size": [1.0, 20.0, 4.0]}]},
        "output": {"trace": {"positions_every": 0.01}},
        "groups": [{"name": "q", "count": 1, "robot": {"model": "quadrotor", "radius": 0.1, "airframe": "crazyflie"},
                    "layout": {"type": "point", "position": [0, 0, 0]}, "controller": controller, "faults": faults}],
    }


def _run(data: dict):
    sim = build(cosim.from_dict(data))
    sim.run()
    tables = sim.recorder.tables()
    pos = tables["positions"]
    events = tables.get("events", {"kind": [], "detail": [], "t_ns": []})
    return sim, np.asarray(pos["t_ns"]) / 1e9, np.asarray(pos["x"]), np.asarray(pos["z"]), events


def _step_metrics(t: np.ndarray, y: np.ndarray, start: float, target: float, t0: float) -> tuple[float, float]:
    """Overshoot (m) and 5% settling time (s after t0) of a step from `start` to `target`."""
    after = t >= t0
    t, y = t[after], y[after]
    overshoot = max(0.0, float(np.max((y - target) * np.sign(target - start))))
    outside = np.nonzero(np.abs(y - target) > 0.05 * abs(target - start))[0]
    return overshoot, float(t[outside[-1] + 1] - t0) if len(outside) else 0.0


def test_a_step_response_agrees_in_both_worlds():
    """Take-off to 5 m, then a 3 m move along x at 6 s. Stated tolerance: overshoots within 5 cm
    and 5% settling times within 0.3 s of each other (the rigid body's centre of mass sits 1.5 cm
    above the kinematic vehicle's reference point on the ground)."""
    metrics = {}
    for backend in ("kinematic", "pybullet"):
        _, t, x, z, _ = _run(scenario(backend, {"class": "tests.controllers.helpers:StepResponse"}))
        metrics[backend] = _step_metrics(t, z, 0.0, 5.0, 0.0) + _step_metrics(t, x, 0.0, 3.0, 6.0)
    kin, rigid = metrics["kinematic"], metrics["pybullet"]
    assert kin[1] > 1.0 and kin[3] > 1.0  # real responses, not instant jumps
    assert abs(kin[0] - rigid[0]) < 0.05 and abs(kin[2] - rigid[2]) < 0.05
    assert abs(kin[1] - rigid[1]) < 0.3 and abs(kin[3] - rigid[3]) < 0.3


def test_a_wall_stops_a_rigid_quadrotor():
    """The wall's face is at x = 9.5 m. Cruising at 2 m/s into it, the 0.1 m disc hits it, tumbles
    and falls (nothing kills it: no crash rule), and never passes through."""
    data = scenario("pybullet", {"class": "tests.controllers.helpers:QuadCruise", "params": {"speed": 2.0, "altitude": 2.0}})
    sim, _t, x, z, events = _run(data)
    assert x.max() < 9.55 and 9.2 < x[-1] < 9.5 and sim.population.alive[0]  # at most a few mm into the wall during the impact
    assert len(events["kind"]) == 0
    roll, pitch, _ = sim.population.controllers[0].robot.attitude
    assert z[-1] < 0.15 and max(abs(roll), abs(pitch)) > 1.0  # knocked over onto the ground


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_flying_into_a_wall_faster_than_the_crash_speed_kills(backend):
    data = scenario(backend, {"class": "tests.controllers.helpers:QuadCruise", "params": {"speed": 2.0, "altitude": 2.0}},
                    crash_speed=1.5)
    sim, _t, _x, z, events = _run(data)
    assert list(events["kind"]) == ["crash"]
    speed = float(re.search(r"impact at ([0-9.]+) m/s", events["detail"][0]).group(1))
    assert speed == pytest.approx(2.0, abs=0.1) and "ground or an obstacle" in events["detail"][0]
    died = events["t_ns"][0] / 1e9
    assert died == pytest.approx(2.0 + 9.4 / 2.0, abs=0.5) and not sim.population.alive[0]
    assert z[-1] < 0.05  # it fell


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_touching_down_slower_than_the_crash_speed_is_a_landing(backend):
    """Sinking at 0.5 m/s onto the ground: a landing for a crash speed of 1 m/s, a crash for 0.3 m/s."""
    landing = scenario(backend, {"class": "tests.controllers.helpers:Land"}, crash_speed=1.0)
    landing["duration"] = 10.0
    sim, _t, _x, z, events = _run(landing)
    assert len(events["kind"]) == 0 and sim.population.alive[0] and z[-1] < 0.05
    hard = scenario(backend, {"class": "tests.controllers.helpers:Land"}, crash_speed=0.3)
    hard["duration"] = 10.0
    sim, _t, _x, z, events = _run(hard)
    assert list(events["kind"]) == ["crash"]
    assert float(re.search(r"impact at ([0-9.]+) m/s", events["detail"][0]).group(1)) == pytest.approx(0.5, abs=0.1)


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_collision_kills_spares_standing_and_landing_but_not_a_wall(backend):
    """faults.collision_kills: resting on the ground and touching down are no collision (a rigid
    body always touches the ground); cruising into the wall is."""
    landing = scenario(backend, {"class": "tests.controllers.helpers:Land"}, collision_kills=True)
    landing["duration"] = 10.0
    sim, _t, _x, z, events = _run(landing)
    assert len(events["kind"]) == 0 and sim.population.alive[0] and z[-1] < 0.05
    cruise = scenario(backend, {"class": "tests.controllers.helpers:QuadCruise", "params": {"speed": 2.0, "altitude": 2.0}},
                      collision_kills=True)
    sim, _t, _x, _z, events = _run(cruise)
    assert list(events["kind"]) == ["collision"] and not sim.population.alive[0]
    assert events["t_ns"][0] / 1e9 == pytest.approx(2.0 + 9.4 / 2.0, abs=0.5)


@pytest.mark.parametrize("backend", ["kinematic", "pybullet"])
def test_tilting_beyond_the_crash_tilt_kills(backend):
    data = scenario(backend, {"class": "tests.controllers.helpers:RollKick", "params": {"roll": 1.2}}, crash_tilt=45)
    data["duration"] = 5.0
    _sim, _t, *_ , events = _run(data)
    assert list(events["kind"]) == ["crash"] and "tilted" in events["detail"][0]
    assert 3.0 < events["t_ns"][0] / 1e9 < 3.5


HOVER_N = 0.027 * 9.81  # the Crazyflie's weight


@pytest.mark.parametrize("mode, setpoint, moved", [
    ("speed_vertical", (0.5, 0.0, 0.3, None), lambda p, att: p[0] > 1.2 and p[2] > 2.7),
    ("speed_altitude", (0.0, 0.5, 3.0, None), lambda p, att: p[1] > 1.2 and abs(p[2] - 3.0) < 0.05),
    ("speed_altitude_heading", (0.5, 0.0, 2.0, 1.0), lambda p, att: abs(att[2] - 1.0) < 0.05 and p[1] > 0.9),
    ("attitude", (0.0, 0.1, 0.0, HOVER_N), lambda p, att: abs(att[1] - 0.1) < 0.01 and p[0] > 2.5 and p[2] < 1.95),
    ("attitude", (0.0, 0.0, 0.5, HOVER_N), lambda p, att: abs(att[2] - 1.5) < 0.05),
])
def test_every_flight_mode_flies_the_same_in_both_worlds(mode, setpoint, moved):
    """Hover at 2 m, then 3 s in the mode: the rigid body ends within 2 cm and 0.01 rad of the
    kinematic vehicle (position mode: the step response above)."""
    a, b, c, d = setpoint
    ends = []
    for backend in ("kinematic", "pybullet"):
        data = scenario(backend, {"class": "tests.controllers.helpers:FlyMode",
                                  "params": {"mode": mode, "a": a, "b": b, "c": c, "d": d}})
        data["duration"], data["world"]["obstacles"] = 7.0, []
        sim = build(cosim.from_dict(data))
        sim.run()
        ends.append((sim.world.position_of(0), np.array(sim.population.controllers[0].robot.attitude)))
    (kin, kin_att), (rigid, rigid_att) = ends
    assert moved(kin, kin_att) and moved(rigid, rigid_att)
    assert np.abs(kin - rigid).max() < 0.02 and np.abs(kin_att - rigid_att).max() < 0.01


def test_a_rigid_body_turns_with_the_airframes_inertia():
    """A roll step of 0.3 rad and a yaw-rate step of 2 rad/s from hover: the rigid body's angles
    over the first half second follow the kinematic vehicle's within 0.01 rad (a body three times
    as stiff to turn lags by more than 0.05 rad)."""
    traces = []
    for backend in ("kinematic", "pybullet"):
        data = scenario(backend, {"class": "tests.controllers.helpers:FlyMode",
                                  "params": {"mode": "attitude", "a": 0.3, "b": 0.0, "c": 2.0, "d": HOVER_N}})
        data["duration"], data["world"]["obstacles"] = 4.5, []
        sim = build(cosim.from_dict(data))
        sim.run()
        traces.append(np.array(sim.population.controllers[0].attitudes))
    kin, rigid = traces
    assert len(kin) >= 45 and kin[:, 0].max() == pytest.approx(0.3, abs=0.05) and kin[-1, 2] > 0.5
    assert np.abs(kin[:, [0, 2]] - rigid[:, [0, 2]]).max() < 0.01


def test_a_hovering_rigid_body_weighs_the_airframes_mass():
    """The controller's integral settles the thrust on what holds the body up: its mass times g."""
    data = scenario("pybullet", {"class": "tests.controllers.helpers:GoTo", "params": {"offset": [0, 0, 2]}})
    data["duration"] = 6.0
    sim = build(cosim.from_dict(data))
    sim.run()
    assert sim.world.thrusts()[0] == pytest.approx(HOVER_N, rel=1e-3)


def test_wind_pushes_a_rigid_quadrotor_as_a_kinematic_one():
    """A 4 m/s mean wind along x with 1 m/s gusts on a vehicle holding its position in the air:
    blown downwind the same way in both worlds (the same gusts from the seed), then brought back;
    the rigid run repeats to the bit."""
    runs = []
    for backend in ("kinematic", "pybullet", "pybullet"):
        data = scenario(backend, {"class": "tests.controllers.helpers:GoTo", "params": {"offset": [0, 0, 2]}})
        data["duration"], data["world"]["obstacles"] = 15.0, []
        data["groups"][0]["layout"]["position"] = [0, 0, 2]
        data["world"]["wind"] = {"mean": [4.0, 0.0, 0.0], "gust_std": 1.0, "gust_tau": 0.5}
        runs.append(_run(data)[2])
    kin, rigid, again = runs
    assert kin.max() > 0.2 and rigid.max() == pytest.approx(kin.max(), rel=0.01)
    assert np.abs(kin - rigid).max() < 0.01 and abs(rigid[-1]) < 0.05
    assert np.array_equal(rigid, again)


def test_rotations_and_angles_match_pybullets_own_conversions():
    import pybullet

    from physics.pybullet.frames import euler_zyx, rotations

    rng = np.random.default_rng(1)
    q = rng.normal(size=(50, 4))
    q /= np.linalg.norm(q, axis=1)[:, None]
    r = rotations(q)
    want = np.array([np.reshape(pybullet.getMatrixFromQuaternion(list(x)), (3, 3)) for x in q])
    assert np.abs(r - want).max() < 1e-12
    angles = np.array([pybullet.getEulerFromQuaternion(list(x)) for x in q])
    assert np.abs(euler_zyx(r) - angles).max() < 1e-12
