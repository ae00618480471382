"""PX4 in lock-step over its simulator interface (cosim.mavlink.sitl.px4_link): a stand-in that speaks
PX4's side as its simulator_mavlink does connects over TCP, is sent sensors stamped with the
simulated time and answers each with its motor outputs; it arms, climbs and the run repeats."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.mavlink.sitl.px4_standin import StandInPx4
from cosim.mavlink.sitl.px4_wire import pressure_hpa
from tests.conftest import free_udp_port


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


def test_px4_mavlink_over_the_radio_is_refused_until_it_is_supported():
    data = _scenario(4560)
    data["mavlink"]["sitl"][0]["mavlink_port"] = 14660
    with pytest.raises(ScenarioError) as err:
        cosim.from_dict(data)
    assert err.value.path == "mavlink.sitl[0].mavlink_port" and "not supported yet" in str(err.value)
