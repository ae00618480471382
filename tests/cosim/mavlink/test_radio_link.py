"""MAVLink carried by the simulated network (cosim.mavlink.radio_link): an outside ground station flies
served vehicles through the in-scenario ground-station robot; a vehicle out of radio range never
hears it, and the trace shows its frames lost."""

from __future__ import annotations

import threading
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.mavlink.client.adapter import MavlinkLink, MavlinkVehicle
from cosim.mavlink.client.launch import take_off
from cosim.mavlink.client.remote_robot import MavlinkRobot
from cosim.mavlink.ground_control import GroundControl
from cosim.mavlink.personality import ARDUPILOT
from cosim.mavlink.radio_link import MSGID_RECORD
from cosim.mavlink.vehicle_view import VehicleView
from tests.conftest import free_udp_port

FAR = [3000.0, 0.0, 0.0]  # beyond the radio's reach (802.11g, path-loss exponent 3)


def _scenario(gcs_port: int, duration: float = 24.0) -> dict:
    return {
        "name": "mavlink_over_radio", "seed": 3, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "10 ms"},
        "network": {"backend": "fast", "radio": {"standard": "802.11g", "pathloss": {"model": "log_distance", "exponent": 3.0}}},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [3100, 50, 30]},
        "output": {"trace": {"positions_every": 0.5}},
        "mavlink": {"speed": 2.0, "origin": [47.3977, 8.5456, 488.0], "ground_station": {"group": "gcs", "port": gcs_port},
                    "serve": [{"group": "copters", "personality": "ardupilot", "port": 0}]},
        "groups": [
            {"name": "gcs", "count": 1, "robot": {"model": "point", "radius": 0.2},
             "layout": {"type": "list", "points": [[0, 0, 1]]}},
            {"name": "copters", "count": 2, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
             "layout": {"type": "list", "points": [[30, 0, 0], FAR]}},
        ],
    }


def _take_off(link) -> MavlinkVehicle:
    vehicle = MavlinkVehicle(link, 1, ARDUPILOT)
    take_off(vehicle, 3.0)
    return vehicle


def _trace(directory, name):
    return pq.read_table(directory / "trace" / f"{name}.parquet").to_pydict()


def _run_with(data: dict, out, fly) -> tuple:
    """Run `data` in a thread while pymavlink, as an outside ground station on its port, calls
    `fly(link)` (it returns the vehicles it made) and then keeps their links serviced to the end."""
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.setdefault("r", cosim.run(cosim.from_dict(data), out_dir=out)))
    runner.start()
    link = MavlinkLink("127.0.0.1", data["mavlink"]["ground_station"]["port"])
    try:
        vehicles = fly(link)
        while runner.is_alive():
            link.poll()
            now = time.monotonic()
            for v in vehicles:
                v.tick(now)
            time.sleep(0.02)
    finally:
        runner.join()
        link.close()
    return outcome["r"], vehicles


def test_a_ground_station_flies_a_vehicle_through_the_simulated_radio(tmp_path):
    def fly(link):
        near = MavlinkVehicle(link, 1, ARDUPILOT)
        take_off(near, 3.0)
        MavlinkRobot(near).fly("position", 40.0, 5.0, 4.0, 0.0)
        return [near, MavlinkVehicle(link, 2, ARDUPILOT)]

    result, (near, far) = _run_with(_scenario(free_udp_port()), tmp_path / "run", fly)
    assert result.status == "ok", result.error
    p = _trace(result.directory, "positions")
    last = np.array(p["t_ns"]) == max(p["t_ns"])
    nodes = np.array(p["node"])[last]
    xyz = np.stack([np.array(p[k])[last] for k in "xyz"], axis=1)[np.argsort(nodes)]
    assert np.linalg.norm(xyz[1] - [40.0, 5.0, 4.0]) < 0.5  # flown over the radio
    assert np.allclose(xyz[2], FAR, atol=1e-6)  # never heard: still on the ground where it started
    assert "HEARTBEAT" in near.latest and "HEARTBEAT" not in far.latest
    net = _trace(result.directory, "network")
    kind = np.array(net["kind"])
    dst = np.array(net["dst"])
    src = np.array(net["src"])
    assert np.count_nonzero((kind == "deliver") & (dst == 1)) > 10  # commands reached the near vehicle
    assert np.count_nonzero((kind == "deliver") & (src == 1) & (dst == 0)) > 10  # and its telemetry came back
    assert np.count_nonzero((kind == "deliver") & (dst == 2)) == 0
    lost = np.array(net["drop_reason"])[(kind == "drop") & (dst == 2)]
    assert len(lost) > 0 and set(lost) <= {"no_ack", "out_of_range", "below_sensitivity", "collision"}
    rec = _trace(result.directory, "records")
    marked = {(n, int(v)) for n, name, v in zip(rec["node"], rec["name"], rec["value"]) if name == MSGID_RECORD}
    assert (0, 0) in marked and (1, 0) in marked  # heartbeats (message id 0) both ways
    assert (0, 76) in marked  # COMMAND_LONG (arm, take-off) from the ground station
    gcs = result.metrics["mavlink"]["ground_station"]
    assert gcs["frames_into_network"] > 0 and gcs["frames_delivered"] > 0
    served = result.metrics["mavlink"]["served1"]
    assert served["frames_received"] > 0 and served["frames_sent"] > 0
    assert result.metrics["mavlink"]["served2"]["frames_received"] == 0
    far_sent = result.metrics["mavlink"]["served2"]["frames_sent"]
    assert gcs["frames_lost_from_vehicles"] >= far_sent > 0  # the far vehicle's frames all lost
    assert gcs["frames_lost_to_vehicles"] > 0  # and the ground station's to it
    summary = (result.directory / "summary.txt").read_text()
    assert f"({gcs['frames_lost_to_vehicles']} not delivered by the end)" in summary and "mavlink    over the radio" in summary


@pytest.mark.parametrize("change, key, message", [
    (lambda d: d["groups"][0].update(count=2), "mavlink.ground_station.group", "one robot"),
    (lambda d: d["mavlink"]["ground_station"].update(group="nobody"), "mavlink.ground_station.group", "no group named"),
    (lambda d: d["groups"][1].update(controller={"class": "controllers:Controller"}), "groups[1].controller",
     "leave the group's controller out"),
    (lambda d: d["mavlink"].pop("ground_station"), "groups[0].controller.class", "missing required key"),
    (lambda d: d["network"].update(backend="none"), "mavlink.ground_station", "set network.backend"),
    (lambda d: d["mavlink"]["serve"][0].update(signing_key_env="KEY"), "mavlink.serve[0].signing_key_env",
     "not supported"),
])
def test_bad_ground_station_sections_name_the_key(change, key, message):
    data = _scenario(14650)
    change(data)
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == key and message in str(err.value)


def test_a_taken_ground_station_port_is_refused_naming_the_key(tmp_path):
    import socket

    busy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    busy.bind(("127.0.0.1", 0))
    try:
        with pytest.raises(ScenarioError) as err:
            cosim.build(cosim.from_dict(_scenario(busy.getsockname()[1], duration=1.0)))
    finally:
        busy.close()
    assert err.value.path == "mavlink.ground_station.port" and "cannot bind" in str(err.value)


def test_mavlink_goes_two_hops_through_a_relay_robot_with_routing(tmp_path):
    """The vehicle is beyond the ground station's reach but within a relay robot's: with AntHocNet the
    frames go through it (two hops each way), and the vehicle flies."""
    data = _scenario(free_udp_port(), duration=20.0)
    data["network"] = {"backend": "fast", "routing": {"protocol": "anthocnet"},
                       "radio": {"standard": "802.11g", "pathloss": {"model": "unit_disk", "range_m": 50.0}}}
    data["groups"][1].update(count=1, layout={"type": "list", "points": [[80, 0, 0]]})
    data["groups"].append({"name": "relay", "count": 1, "robot": {"model": "point", "radius": 0.2},
                           "layout": {"type": "list", "points": [[40, 0, 1]]}, "controller": {"class": "controllers:Controller"}})
    result, _ = _run_with(data, tmp_path / "run", lambda link: [_take_off(link)])
    assert result.status == "ok", result.error
    p = _trace(result.directory, "positions")
    last = (np.array(p["t_ns"]) == max(p["t_ns"])) & (np.array(p["node"]) == 1)
    assert abs(np.array(p["z"])[last][0] - 3.0) < 0.3  # took off through the relay
    packets = _trace(result.directory, "packets")
    kind = np.array(packets["kind"])
    at_vehicle = (kind == "recv") & (np.array(packets["node"]) == 1)
    at_gcs = (kind == "recv") & (np.array(packets["node"]) == 0)
    assert at_vehicle.any() and set(np.array(packets["hops"])[at_vehicle].tolist()) == {2}
    assert at_gcs.any() and set(np.array(packets["hops"])[at_gcs].tolist()) == {2}


def test_the_same_ground_station_flies_over_ns3(tmp_path):
    """network.backend: ns3 carries the same frames: ns-3's 802.11g delivers them, the vehicle takes off."""
    data = _scenario(free_udp_port(), duration=16.0)
    data["network"]["backend"] = "ns3"
    data["groups"][1].update(count=1, layout={"type": "list", "points": [[30, 0, 0]]})
    result, _ = _run_with(data, tmp_path / "run", lambda link: [_take_off(link)])
    assert result.status == "ok", result.error
    p = _trace(result.directory, "positions")
    last = (np.array(p["t_ns"]) == max(p["t_ns"])) & (np.array(p["node"]) == 1)
    assert abs(np.array(p["z"])[last][0] - 3.0) < 0.3
    net = _trace(result.directory, "network")
    delivered = np.array(net["kind"]) == "deliver"
    assert np.count_nonzero(delivered & (np.array(net["dst"]) == 1)) > 5
    assert np.count_nonzero(delivered & (np.array(net["dst"]) == 0)) > 50


class FlyOne(GroundControl):
    """A scripted ground station: take off at 2 s, fly to (40, 5, 4) at 8 s, record what came back."""

    def setup(self) -> None:
        super().setup()
        self.after(2.0, lambda: self.takeoff(1, 4.0))
        self.after(8.0, lambda: self.goto(1, 40.0, 5.0, 4.0))

    def on_mavlink(self, vehicle: VehicleView, msg) -> None:
        if msg.get_type() == "COMMAND_ACK":
            self.record(f"ack_{msg.command}", msg.result)


def _scripted(duration: float = 20.0) -> dict:
    data = _scenario(0, duration)
    data["mavlink"].update(speed=1.0, paced=False, ground_station={"group": "gcs"})
    data["groups"][0]["controller"] = {"class": "tests.cosim.mavlink.test_radio_link:FlyOne"}
    data["groups"][1].update(count=1, layout={"type": "list", "points": [[30, 0, 0]]})
    return data


def test_a_ground_station_written_as_a_controller_flies_and_repeats_bit_for_bit(tmp_path):
    first = cosim.run(cosim.from_dict(_scripted()), out_dir=tmp_path / "a")
    again = cosim.run(cosim.from_dict(_scripted()), out_dir=tmp_path / "b")
    assert first.status == "ok" and again.status == "ok", (first.error, again.error)
    assert first.metrics["trace_sha256"] == again.metrics["trace_sha256"]
    p = _trace(first.directory, "positions")
    last = (np.array(p["t_ns"]) == max(p["t_ns"])) & (np.array(p["node"]) == 1)
    xyz = np.array([np.array(p[k])[last][0] for k in "xyz"])
    assert np.linalg.norm(xyz - [40.0, 5.0, 4.0]) < 0.5
    rec = _trace(first.directory, "records")
    acks = {name: value for name, value in zip(rec["name"], rec["value"]) if name.startswith("ack_")}
    assert acks == {"ack_176": 0.0, "ack_400": 0.0, "ack_22": 0.0}  # mode, arm, take-off: MAV_RESULT_ACCEPTED
    assert "ground_station" not in first.metrics["mavlink"]  # no outside port was opened
    assert "realtime" not in first.metrics and "real time" not in (first.directory / "summary.txt").read_text()  # unpaced
    assert first.metrics["mavlink"]["served1"]["frames_received"] >= 4  # heartbeats, mode, arm, take-off, goto


@pytest.mark.parametrize("change, key, message", [
    (lambda d: d["mavlink"]["ground_station"].update(port=14650), "mavlink.ground_station.port", "leave it out"),
    (lambda d: d["groups"][0].update(controller={"class": "controllers:Controller"}), "mavlink.ground_station.group",
     "not a cosim.mavlink.ground_control:GroundControl"),
])
def test_a_scripted_ground_station_is_refused_what_it_cannot_do(change, key, message):
    data = _scripted()
    change(data)
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == key and message in str(err.value)


def test_direct_serves_the_vehicles_port_beside_the_radio(tmp_path):
    """With `direct: true` a second ground station on the vehicle's own port hears it too."""
    vehicle_port = free_udp_port()
    data = _scenario(free_udp_port(), duration=8.0)
    data["mavlink"]["serve"][0].update(port=vehicle_port, direct=True)
    data["groups"][1].update(count=1, layout={"type": "list", "points": [[30, 0, 0]]})
    side = MavlinkLink("127.0.0.1", vehicle_port)
    try:
        side_view = MavlinkVehicle(side, 1, ARDUPILOT)

        def fly(link):
            through_radio = MavlinkVehicle(link, 1, ARDUPILOT)
            take_off(through_radio, 2.0)
            return [through_radio, side_view]  # the side station's heartbeats make it the port's peer

        result, (radio_view, _) = _run_with(data, tmp_path / "run", fly)
        side.poll()  # what the vehicle sent to its own port waits in the socket
    finally:
        side.close()
    assert result.status == "ok", result.error
    assert "HEARTBEAT" in radio_view.latest and "HEARTBEAT" in side_view.latest
    assert side_view.latest["HEARTBEAT"].base_mode & 128  # the side station saw it armed (through the radio's command)


def test_direct_without_a_ground_station_is_refused():
    data = _scenario(14650)
    data["mavlink"].pop("ground_station")
    data["mavlink"]["serve"][0]["direct"] = True
    for g in data["groups"]:
        g["controller"] = {"class": "controllers:Controller"}
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == "mavlink.serve[0].direct" and "leave it out" in str(err.value)


def test_a_scripted_ground_station_sends_a_lost_command_again_and_in_turn(tmp_path):
    """On a link that loses most frames (each reception lost with probability 0.9, the MAC's retries
    included), the take-off's commands are sent again until acknowledged, one after the other: the
    vehicle is flown all the same, and the trace shows more COMMAND_LONGs than commands."""
    data = _scripted(duration=30.0)
    data["network"]["radio"]["fast"] = {"loss_probability": 0.9}
    result = cosim.run(cosim.from_dict(data), out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    rec = _trace(result.directory, "records")
    sent = [v for n, name, v in zip(rec["node"], rec["name"], rec["value"]) if n == 0 and name == MSGID_RECORD and v == 76]
    acks = {name: value for name, value in zip(rec["name"], rec["value"]) if name.startswith("ack_")}
    assert acks == {"ack_176": 0.0, "ack_400": 0.0, "ack_22": 0.0}
    assert len(sent) > 3  # some were sent again
    p = _trace(result.directory, "positions")
    last = (np.array(p["t_ns"]) == max(p["t_ns"])) & (np.array(p["node"]) == 1)
    assert np.array(p["z"])[last][0] > 3.0


class MissionOne(GroundControl):
    """A scripted ground station that asks for positions, uploads a two-waypoint mission ending in a
    landing, and starts it once the vehicle accepted it."""

    def setup(self) -> None:
        super().setup()
        self.after(1.5, lambda: self.request_streams(1))
        self.after(3.0, lambda: self.upload_mission(1, [(40.0, 0.0, 5.0), (40.0, 10.0, 5.0)], end="land"))
        self.after(5.0, self._start)

    def _start(self) -> None:
        if self.vehicles[1].mission_result == 0:  # MAV_MISSION_ACCEPTED
            self.start_mission(1)


def test_a_scripted_ground_station_uploads_and_flies_a_mission_over_the_radio(tmp_path):
    data = _scripted(duration=60.0)
    data["groups"][0]["controller"] = {"class": "tests.cosim.mavlink.test_radio_link:MissionOne"}
    result = cosim.run(cosim.from_dict(data), out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
    rec = _trace(result.directory, "records")
    assert [v for name, v in zip(rec["name"], rec["value"]) if name == "mission_ack.1"] == [0.0]
    p = _trace(result.directory, "positions")
    mine = np.array(p["node"]) == 1
    xyz = np.stack([np.array(p[k])[mine] for k in "xyz"], axis=1)
    assert xyz[:, 2].max() > 4.5  # climbed to the mission's height
    assert np.linalg.norm(xyz[:, :2] - [40.0, 0.0], axis=1).min() < 2.5  # through the first waypoint
    # landed where the last waypoint was reached (within its 2 m acceptance radius, as ArduPilot goes on)
    assert np.linalg.norm(xyz[-1, :2] - [40.0, 10.0]) < 2.5 and xyz[-1, 2] < 0.2
