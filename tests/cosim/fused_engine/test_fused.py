"""The fused engine: compiled kilolib programs on the kinematic world and the fast radio run many ticks
per compiled call and give the event engine's trace, bit for bit: the same receive times, the same
loss and noise draws from the same streams, the same records. Across processes too, and from the
on-disk cache."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import cosim
from tests.conftest import ROOT

pytestmark = pytest.mark.kernels  # also run bounds-checked: `make test`, NUMBA_BOUNDSCHECK=1

CONFIG = ROOT / "configs" / "kilolib_follow_compiled.yaml"


def run(monkeypatch, engine: str, overrides: dict):
    monkeypatch.setenv("COSIM_ENGINE", engine)
    sim = cosim.build(cosim.load(CONFIG, {"duration": 20.0, **overrides}))
    sim.run()
    c = sim.counters
    return sim.engine_path, sim.recorder.digest(), (c.sent, c.delivered, c.dropped, c.physics_steps, c.events)


LINE = {"groups.1.count": 299, "groups.1.layout": {"type": "line", "start": [-0.05, 0, 0], "step": [-0.05, 0, 0]},
        "world.arena_lower": [-16, -1, 0], "duration": 6.0}

CASES = {
    "as configured": {},
    "losses and noisy distances": {"network.radio.fast.loss_probability": 0.3, "groups.1.controller.params":
                                   {"distance_noise_mm": 3.0}, "groups.0.controller.params": {"distance_noise_mm": 1.0}},
    "300 robots (the radio's cell index)": LINE,
    "frames in the air that outgrow their first room": {**LINE, "network.radio.fast.latency": "4 s"},
    "a crowd that collides, a quantum of 3 steps": {"quantum": "30 ms", "groups.1.layout": {"type": "list", "points":
                                                    [[-0.02, 0, 0], [-0.03, 0.01, 0], [-0.04, -0.01, 0]]}},
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_fused_engine_gives_the_event_engines_trace(case, monkeypatch):
    event = run(monkeypatch, "event", CASES[case])
    fused = run(monkeypatch, "auto", CASES[case])
    assert (event[0], fused[0]) == ("event", "fused")
    assert fused[2] == event[2] and event[2][1] > 0
    assert fused[1] == event[1]


def test_the_frames_in_the_air_grow_rather_than_overflow(monkeypatch, caplog):
    caplog.set_level("INFO", logger="netstack.fast.air")
    engine, _, (_, delivered, *_) = run(monkeypatch, "auto", CASES["frames in the air that outgrow their first room"])
    assert engine == "fused" and delivered > 0
    grew = [r.getMessage() for r in caplog.records if "grow to" in r.getMessage()]
    # 4 s in the air, a frame from each of the 300 robots every few hundred ms: thousands at once, the
    # first room 64 slots (netstack.fast.backend.FIRST_SLOTS)
    assert grew and int(grew[-1].split(" grow to ")[1].split()[0]) > 4 * 300


def test_losses_are_drops_in_the_trace_on_both_engines(monkeypatch):
    _, _, (_, delivered, dropped, _, _) = run(monkeypatch, "auto", CASES["losses and noisy distances"])
    assert dropped > 0.2 * (delivered + dropped)


def test_the_run_says_which_engine_it_took(tmp_path, monkeypatch):
    monkeypatch.setenv("COSIM_ENGINE", "auto")
    fused = cosim.run(cosim.load(CONFIG, {"duration": 2.0}), out_dir=tmp_path / "fused")
    other = cosim.run(cosim.load(CONFIG, {"duration": 2.0, "network.radio.pathloss": {"model": "log_distance"}}),
                      out_dir=tmp_path / "event")
    fused_m = json.loads((fused.directory / "metrics.json").read_text())
    other_m = json.loads((other.directory / "metrics.json").read_text())
    assert (fused_m["engine_path"], fused_m["slower_paths"]) == ("fused", [])
    assert other_m["engine_path"] == "event"
    why = "compiled programs on the event engine, not the fused one: a radio model other than the unit disk"
    assert other_m["slower_paths"] == [why]
    assert f"slower     {why}" in (other.directory / "summary.txt").read_text()
    assert other.status == fused.status == "ok"


def test_the_engine_choice_is_checked(monkeypatch):
    monkeypatch.setenv("COSIM_ENGINE", "fast")
    with pytest.raises(ValueError, match="COSIM_ENGINE='fast': expected auto"):
        cosim.build(cosim.load(CONFIG, {"duration": 1.0}))


CHILD = """
import sys
import cosim
sim = cosim.build(cosim.load(sys.argv[1], {"duration": 10.0}))
sim.run()
fused = [m for n, m in sys.modules.items() if n.startswith("cosim_generated_fused")]
print(sim.engine_path, sim.recorder.digest(), sum(fused[0].advance.stats.cache_hits.values()))
"""


def test_same_trace_across_processes_and_the_compiled_code_is_loaded_from_disk(monkeypatch):
    monkeypatch.setenv("COSIM_ENGINE", "auto")
    out = [subprocess.run([sys.executable, "-c", CHILD, str(CONFIG)], capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout.split() for _ in range(2)]
    assert out[0][:2] == out[1][:2] and out[0][0] == "fused"
    assert int(out[1][2]) == 1  # the second process compiled nothing
