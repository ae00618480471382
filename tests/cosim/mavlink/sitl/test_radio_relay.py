"""Lock-stepped firmware's MAVLink through the simulated radio (cosim.mavlink.sitl.radio_relay): a
ground station written as a controller flies firmware-flown copters whose MAVLink ports are bridged
to their robots; one out of range never hears it; the whole run repeats bit for bit."""

from __future__ import annotations

import contextlib
import socket
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
from pymavlink.dialects.v20 import common as mav

import cosim
from cosim.errors import ScenarioError
from cosim.mavlink.ground_control import GroundControl
from cosim.mavlink.sitl.radio_relay import FirmwareRelay
from cosim.mavlink.sitl.standin import StandInFirmware
from cosim.mavlink.vehicle_view import VehicleView
from physics.geodesy import GeoOrigin
from tests.cosim.mavlink.test_datagrams import unknown_frame

FAR = [3000.0, 0.0, 0.0]
ORIGIN = (47.3977, 8.5456, 488.0)
HOMES = [GeoOrigin(*ORIGIN).to_geodetic(30.0, 0.0, 0.0), GeoOrigin(*ORIGIN).to_geodetic(*FAR)]
"""Each firmware's --home: where its robot starts (the run logs it)."""


class TakeOffAll(GroundControl):
    """At 6 s every vehicle heard is told to take off to 4 m; at 14 s the first flies to (36, 4, 4)."""

    def setup(self) -> None:
        super().setup()
        self.after(6.0, lambda: [self.takeoff(sysid, 4.0) for sysid in sorted(self.vehicles)])
        self.after(14.0, lambda: self.goto(1, 36.0, 4.0, 4.0) if 1 in self.vehicles else None)

    def on_mavlink(self, vehicle: VehicleView, msg) -> None:
        if msg.get_type() == "COMMAND_ACK":
            self.record(f"ack_{vehicle.sysid}_{msg.command}", msg.result)
        if msg.get_type() == "STATUSTEXT":
            self.record(f"text_{vehicle.sysid}", len(msg.text))


def _free_pair() -> int:
    """A port p with p and p + 10 both free on 127.0.0.1 (robot k of a group uses p + 10 k)."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as a:
            a.bind(("127.0.0.1", 0))
            p = a.getsockname()[1]
            if p + 10 > 65535:
                continue
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as b:
                    b.bind(("127.0.0.1", p + 10))
                    return p
            except OSError:
                continue
    raise RuntimeError("no free pair of UDP ports")


def _scenario(json_port: int, mav_port: int, duration: float = 20.0, backend: str = "fast") -> dict:
    radio = {"standard": "802.11g", "pathloss": {"model": "log_distance", "exponent": 3.0}}
    return {
        "name": "sitl_over_radio", "seed": 4, "duration": duration, "quantum": "10 ms",
        "physics": {"backend": "kinematic", "dt": "2.5 ms"},
        "network": {"backend": backend, "radio": radio},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [3100, 50, 30]},
        "output": {"trace": {"positions_every": 0.5}},
        "mavlink": {"origin": list(ORIGIN), "speed": 1000.0, "ground_station": {"group": "gcs"},
                    "sitl": [{"group": "copters", "port": json_port, "mavlink_port": mav_port, "connect_timeout": "20 s"}]},
        "groups": [
            {"name": "gcs", "count": 1, "robot": {"model": "point", "radius": 0.2},
             "layout": {"type": "list", "points": [[0, 0, 1]]},
             "controller": {"class": "tests.cosim.mavlink.sitl.test_radio_relay:TakeOffAll"}},
            {"name": "copters", "count": 2, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
             "layout": {"type": "list", "points": [[30, 0, 0], FAR]}},
        ],
    }


def _fly(tmp_path, name: str, position_after_s: float = 3.0, **kw):
    json_port = _free_pair()
    mav_port = _free_pair()
    with contextlib.ExitStack() as stack:
        for k in range(2):
            fw = StandInFirmware(json_port + 10 * k, mavlink_port=mav_port + 10 * k, sysid=1 + k, home=HOMES[k],
                                 position_after_s=position_after_s).start()
            stack.callback(fw.stop)
        result = cosim.run(cosim.from_dict(_scenario(json_port, mav_port, **kw)), out_dir=tmp_path / name)
    assert result.status == "ok", result.error
    return result


def _table(result, name):
    return pq.read_table(result.directory / "trace" / f"{name}.parquet").to_pydict()


def test_a_scripted_ground_station_flies_lock_stepped_firmware_over_the_radio_and_repeats(tmp_path):
    first = _fly(tmp_path, "a")
    p = _table(first, "positions")
    last = np.array(p["t_ns"]) == max(p["t_ns"])
    nodes = np.array(p["node"])[last]
    xyz = np.stack([np.array(p[k])[last] for k in "xyz"], axis=1)[np.argsort(nodes)]
    assert np.linalg.norm(xyz[1] - [36.0, 4.0, 4.0]) < 1.0  # taken off and flown by the firmware, over the radio
    assert np.allclose(xyz[2], FAR, atol=1e-6)  # out of range: it never heard a command
    rec = _table(first, "records")
    acks = {name: value for name, value in zip(rec["name"], rec["value"]) if name.startswith("ack_")}
    assert acks == {"ack_1_176": 0.0, "ack_1_400": 0.0, "ack_1_22": 0.0}  # guided, arm, take-off: accepted
    m = first.metrics["mavlink"]
    assert m["firmware1"]["frames_sent"] > 20 and m["firmware1"]["frames_received"] >= 5
    assert m["firmware2"]["frames_sent"] > 20 and m["firmware2"]["frames_received"] == 0
    assert m["firmware1"]["foreign"] == 0 and m["firmware1"]["unheard"] == 0
    net = _table(first, "network")
    kind = np.array(net["kind"])
    assert np.count_nonzero((kind == "drop") & (np.array(net["src"]) == 2)) > 0  # its frames lost on the way
    again = _fly(tmp_path, "b")  # other firmware instances, the same run
    assert again.metrics["trace_sha256"] == first.metrics["trace_sha256"]


def test_the_firmware_refuses_to_arm_before_its_position_estimate_and_says_so(tmp_path):
    # take-off at 6 s, the stand-in's position at 3 s: accepted; with the position at 8 s, refused
    result = _fly(tmp_path, "r", position_after_s=8.0, duration=10.0)
    rec = _table(result, "records")
    acks = {name: value for name, value in zip(rec["name"], rec["value"]) if name.startswith("ack_")}
    assert acks["ack_1_400"] == 4.0  # MAV_RESULT_FAILED
    assert any(name == "text_1" for name in rec["name"])  # "Arm: Need Position Estimate"


def _without_ground_station(d: dict) -> None:
    """No ground station: every group names a controller again."""
    d["mavlink"].pop("ground_station")
    for g in d["groups"]:
        g["controller"] = {"class": "controllers:Controller"}


@pytest.mark.parametrize("change, key, message", [
    (lambda d: d["mavlink"]["sitl"][0].pop("mavlink_port"), "mavlink.sitl[0].mavlink_port", "missing"),
    (lambda d: d["groups"][1].update(controller={"class": "controllers:Controller"}), "groups[1].controller",
     "relays its MAVLink"),
    (_without_ground_station, "mavlink.sitl[0].mavlink_port", "add a ground station"),
    (lambda d: d["mavlink"]["sitl"][0].update(first_sysid=255), "mavlink.sitl[0].first_sysid", "pass 255"),
    (lambda d: d["mavlink"]["sitl"][0].update(mavlink_port=65530), "mavlink.sitl[0].mavlink_port",
     "robot 1 of group 'copters' would use port 65540, past 65535"),
    (lambda d: d["mavlink"]["sitl"][0].update(port=65530), "mavlink.sitl[0].port",
     "robot 1 of group 'copters' would use port 65540, past 65535"),
])
def test_bad_firmware_relays_are_refused_naming_the_key(change, key, message):
    data = _scenario(9002, 14660)
    change(data)
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == key and message in str(err.value)


class _Radio:
    """What the relay's robot was asked to send (the run's network, as far as the relay uses it)."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes]] = []

    def send(self, dst: int, payload: bytes, port: int = 0, interface: str | None = None) -> int:
        self.sent.append((dst, payload))
        return len(self.sent)


class _Records:
    def __init__(self) -> None:
        self.samples: list[tuple[str, float]] = []

    def record(self, name: str, value: float) -> None:
        self.samples.append((name, value))


def test_frames_of_messages_our_dialect_lacks_are_relayed_by_their_header():
    """Real PX4 sends CURRENT_MODE (436), LINK_NODE_STATUS (8) and others pymavlink's dialect lacks; they
    were counted as frames of system 0 and dropped, with a warning to start the firmware with --sysid."""
    relay = FirmwareRelay("127.0.0.1", 0, 0, 1)
    radio, records = _Radio(), _Records()
    relay.bind(1, None, radio, np.random.default_rng(0), records)
    firmware = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        heartbeat = mav.MAVLink_heartbeat_message(2, 12, 0, 0, 0, 3).pack(mav.MAVLink(None, srcSystem=1, srcComponent=1))
        for frame in (heartbeat, unknown_frame(436, 1), unknown_frame(436, 3)):
            firmware.sendto(frame, ("127.0.0.1", relay.port))
        time.sleep(0.05)
        relay.pump()
        assert radio.sent == [(0, heartbeat), (0, unknown_frame(436, 1))]
        assert relay.foreign == 1 and [v for _, v in records.samples] == [0, 436]
    finally:
        firmware.close()
        relay.close()
