"""PX4 in lock-step over its simulator interface (cosim.mavlink.sitl.px4_link): a stand-in that speaks
PX4's side as its simulator_mavlink does connects over TCP, is sent sensors stamped with the
simulated time and answers each with its motor outputs; it arms, climbs and the run repeats."""

from __future__ import annotations

import socket

import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.mavlink.sitl.px4_standin import StandInPx4
from cosim.mavlink.sitl.px4_wire import pressure_hpa
from physics.geodesy import GeoOrigin
from tests.conftest import free_udp_port

ORIGIN = (47.3977, 8.5456, 488.0)


def _scenario(port: int, duration: float = 4.0) -> dict:
    return {
        "name": "px4", "seed": 1, "duration": duration, "quantum": "20 ms",
        "physics": {"backend": "kinematic", "dt": "20 ms"}, "network": {"backend": "none"},
        "world": {"arena_lower": [-50, -50, 0], "arena_upper": [50, 50, 30]},
        "output": {"trace": {"positions_every": 0.25}},
        "groups": [{"name": "px4", "count": 1, "robot": {"model": "quadrotor", "airframe": "quad_1500g"},
                    "layout": {"type": "list", "points": [[2, 1, 0]]}, "controller": {"class": "controllers:Controller"}}],
        "mavlink": {"sitl": [{"group": "px4", "autopilot": "px4", "port": port, "connect_timeout": "20 s"}]}}


def _fly(tmp_path, name):
    port = free_udp_port()  # (a free number; the run binds it for TCP)
    firmware = StandInPx4(port).start()
    try:
        result = cosim.run(cosim.from_dict(_scenario(port)), out_dir=tmp_path / name)
    finally:
        firmware.stop()
    assert result.status == "ok", result.error
    assert not firmware.errors
    p = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    return result, firmware, p["z"]


def test_px4_is_sent_its_sensors_each_tick_arms_climbs_and_the_run_repeats(tmp_path):
    first, firmware, heights = _fly(tmp_path, "a")
    stats = first.metrics["sitl"]["robot0"]
    # 4 ms ticks for 4 s: a sensor message at every tick after time 0, each answered; GPS at 10 Hz
    assert stats == {"sensors": 999, "controls": 999, "gps": 40}
    assert firmware.sensors == 999 and 1.0 <= firmware.armed_at < 1.01
    assert heights[0] == 0.0 and heights[4] == 0.0 and heights[-1] > 2.0  # still until armed at 1 s, then up
    second, _, _ = _fly(tmp_path, "b")
    assert second.trace_digest == first.trace_digest


def test_the_barometer_follows_the_standard_atmosphere():
    assert pressure_hpa(0.0) == pytest.approx(1013.25)
    assert pressure_hpa(488.0) == pytest.approx(956.1, abs=0.2)  # the default origin's altitude
    assert pressure_hpa(1000.0) == pytest.approx(898.7, abs=0.2)


def _over_radio(port: int, mav_port: int, duration: float) -> dict:
    data = _scenario(port, duration)
    data["network"] = {"backend": "fast", "radio": {"standard": "802.11g"}}
    data["mavlink"] |= {"origin": list(ORIGIN), "ground_station": {"group": "gcs"}, "speed": 1000.0}
    data["mavlink"]["sitl"][0]["mavlink_port"] = mav_port
    del data["groups"][0]["controller"]
    data["groups"].append({"name": "gcs", "count": 1, "robot": {"model": "point", "radius": 0.2},
                           "layout": {"type": "list", "points": [[0, 0, 1]]},
                           "controller": {"class": "cosim.mavlink.ground_missions:MissionFlights",
                                          "params": {"legs": [[0, 0, 3], [4, 0, 3]], "end": "land", "retry": 1.0}}})
    return data


def _fly_over_radio(tmp_path, name):
    port = free_udp_port()
    link_port = free_udp_port()  # PX4's ground-station link (18570 + instance in its startup script)
    remote = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # where PX4 sends before it has a partner
    remote.bind(("127.0.0.1", 0))
    remote.setblocking(False)
    firmware = StandInPx4(port, mavlink_port=link_port, home=GeoOrigin(*ORIGIN).to_geodetic(2.0, 1.0, 0.0),
                          remote_port=remote.getsockname()[1]).start()
    try:
        result = cosim.run(cosim.from_dict(_over_radio(port, link_port, 15.0)), out_dir=tmp_path / name)
    finally:
        firmware.stop()
        remote.close()
    return result, firmware


def test_px4_mavlink_goes_over_the_radio_and_it_flies_the_ground_stations_mission(tmp_path):
    result, firmware = _fly_over_radio(tmp_path, "a")
    assert result.status == "ok", result.error
    m = result.metrics["mavlink"]["firmware0"]
    assert firmware.autopilot.port.partner == ("127.0.0.1", m["port"])  # the relay claimed PX4's link
    assert m["sysid"] == 1 and m["foreign"] == 0 and m["frames_sent"] > 100 and m["frames_received"] > 10
    rec = pq.read_table(result.directory / "trace" / "records.parquet").to_pydict()
    steps = [v for name, v in zip(rec["name"], rec["value"]) if name == "mission_step.1"]
    acks = {name: v for name, v in zip(rec["name"], rec["value"]) if name.startswith("ack_")}
    assert steps[-1] == 5.0  # uploaded, verified, started: armed and flying its mission
    assert acks["ack_300.1"] == 0.0  # MISSION_START from item 0: armed and in its mission mode (PX4's start)
    p = pq.read_table(result.directory / "trace" / "positions.parquet").to_pydict()
    track = [(x, z) for node, x, z in zip(p["node"], p["x"], p["z"]) if node == 0]
    # up to 3 m, then east (PX4 takes a waypoint within NAV_ACC_RAD, 2 m) and down again
    assert max(z for _, z in track) > 2.5 and max(x for x, _ in track) > 4.5 and track[-1][1] == 0.0
    again, _ = _fly_over_radio(tmp_path, "b")  # the stand-in sends only before it answers: the run repeats
    assert again.trace_digest == result.trace_digest


def test_px4_instance_ports_past_65535_are_refused_naming_the_key():
    data = _over_radio(4560, 65535, 4.0)
    data["groups"][0] |= {"count": 2, "layout": {"type": "list", "points": [[2, 1, 0], [4, 1, 0]]}}
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == "mavlink.sitl[0].mavlink_port" and "would use port 65536, past 65535" in str(err.value)


def test_px4_is_system_instance_plus_one_over_the_radio():
    data = _over_radio(4560, 18570, 4.0)
    data["mavlink"]["sitl"][0]["first_sysid"] = 5
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == "mavlink.sitl[0].first_sysid" and "MAV_SYS_ID" in str(err.value)
