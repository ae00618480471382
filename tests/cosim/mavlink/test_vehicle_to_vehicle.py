"""Vehicle-to-vehicle MAVLink through the simulated radio: a leader copter flown by its own controller
(a GroundControl) commands a served follower's autopilot; the follower's answers reach the leader
because it spoke to it first, and the ground station still hears the follower."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq

import cosim
from cosim.mavlink.ground_control import GroundControl
from cosim.mavlink.vehicle_view import VehicleView


class FollowMe(GroundControl):
    """Flies itself to (20, 10, 4) and, from 2 s, tells vehicle 1 (unheard until then) to take off and
    follow 3 m behind it, every second."""

    def setup(self) -> None:
        super().setup()
        self.every(0.1, lambda: self.robot.fly("position", 20.0, 10.0, 4.0))
        self.after(2.0, lambda: self.takeoff(1, 4.0))
        self.after(8.0, lambda: self.every(1.0, self._follow))

    def _follow(self) -> None:
        x, y, z = self.robot.position
        self.goto(1, x - 3.0, y, z)

    def on_mavlink(self, vehicle: VehicleView, msg) -> None:
        if msg.get_type() == "COMMAND_ACK":
            self.record(f"ack_{msg.command}", msg.result)


class Listen(GroundControl):
    """A ground station that only listens (and beats): it hears the follower's telemetry."""

    def on_mavlink(self, vehicle: VehicleView, msg) -> None:
        if msg.get_type() == "HEARTBEAT":
            self.record(f"heard_{vehicle.sysid}", 1.0)


def _scenario() -> dict:
    here = "tests.cosim.mavlink.test_vehicle_to_vehicle"
    return {
        "name": "v2v", "seed": 2, "duration": 20.0, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "fast", "radio": {"standard": "802.11g", "pathloss": {"model": "log_distance", "exponent": 3.0}}},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [80, 50, 30]},
        "output": {"trace": {"positions_every": 0.5}},
        "mavlink": {"speed": 1000.0, "ground_station": {"group": "gcs"},
                    "serve": [{"group": "follower", "personality": "ardupilot", "port": 0}]},
        "groups": [
            {"name": "gcs", "count": 1, "robot": {"model": "point", "radius": 0.2},
             "layout": {"type": "list", "points": [[0, 0, 1]]}, "controller": {"class": f"{here}:Listen"}},
            {"name": "follower", "count": 1, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
             "layout": {"type": "list", "points": [[10, 0, 0]]}},
            {"name": "leader", "count": 1, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
             "layout": {"type": "list", "points": [[15, 0, 0]]}, "controller": {"class": f"{here}:FollowMe"}},
        ],
    }


def test_a_controller_on_one_vehicle_flies_another_through_the_radio(tmp_path):
    result = cosim.run(cosim.from_dict(_scenario()), out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    p = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    last = np.array(p["t_ns"]) == max(p["t_ns"])
    nodes = np.array(p["node"])[last]
    xyz = np.stack([np.array(p[k])[last] for k in "xyz"], axis=1)[np.argsort(nodes)]
    assert np.linalg.norm(xyz[2] - [20.0, 10.0, 4.0]) < 0.5  # the leader flew itself
    assert np.linalg.norm(xyz[1] - [17.0, 10.0, 4.0]) < 1.0  # the follower, 3 m behind it, by MAVLink from it
    rec = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    acks = {(n, name): v for n, name, v in zip(rec["node"], rec["name"], rec["value"]) if name.startswith("ack_")}
    assert acks == {(2, "ack_176"): 0.0, (2, "ack_400"): 0.0, (2, "ack_22"): 0.0}  # answered to the leader only
    assert any(n == 0 and name == "heard_1" for n, name in zip(rec["node"], rec["name"]))  # the station hears it too
    net = pq.read_table(result.directory / "trace" / "network.parquet").to_pydict()
    kind = np.array(net["kind"])
    src = np.array(net["src"])
    dst = np.array(net["dst"])
    assert np.count_nonzero((kind == "deliver") & (src == 2) & (dst == 1)) > 10  # leader -> follower
    assert np.count_nonzero((kind == "deliver") & (src == 1) & (dst == 2)) > 10  # follower -> leader
    m = result.metrics["mavlink"]["served1"]
    assert m["frames_received"] > 10 and m["frames_sent"] > 10
