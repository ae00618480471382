"""`cosim compare`: two runs side by side, with numbers taken from their traces."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

from cosim.cli import main
from cosim.report import run_data as rd
from cosim.report.comparison import divergence, link_delays, side
from tests.conftest import base_scenario

PNG = b"\x89PNG\r\n\x1a\n"


def _csma(**overrides) -> dict:
    """40 walkers as one group controller on 802.11b: the sends of a tick go at one instant, and collide."""
    data = base_scenario(duration=3.0, **overrides)
    data["groups"][0].update(count=40, controller={"class": "controllers.library.random_walk_group:InstrumentSwarm",
                                                   "period": 0.1})
    data["network"] = {"backend": "fast", "radio": {"standard": "802.11b", "pathloss": {"model": "unit_disk", "range_m": 30.0}}}
    data["output"] = {"trace": {"positions_every": 0.5}}
    return data


def test_the_table_counts_what_the_traces_hold(run_dict):
    a, b = run_dict(_csma()), run_dict(_csma(seed=4))
    sa = side(rd.load_run(a.directory))
    net = pq.read_table(a.directory / "trace" / "network.parquet").to_pandas()
    assert sa.sent == (net.kind == "send").sum() == a.metrics["messages_sent"]
    assert sa.delivered == a.metrics["messages_delivered"]
    assert sum(sa.reasons.values()) == a.metrics["messages_dropped"] == (net.kind == "drop").sum() > 0
    assert sa.reasons == net[net.kind == "drop"].drop_reason.astype(str).value_counts().to_dict()
    assert sa.engines == "network fast (802.11b), physics kinematic, seed 3"
    # a reception is never earlier than its frame's send, and 802.11b at 1 Mbit/s takes at least the preamble
    assert len(sa.delay_s) == sa.delivered and sa.delay_s.min() >= 192e-6
    same = divergence(rd.load_run(a.directory), rd.load_run(a.directory))
    assert np.all(same[1] == 0.0)
    apart = divergence(rd.load_run(a.directory), rd.load_run(b.directory))
    assert apart[1][-1] > 0.1 and np.all(apart[2] >= apart[1])


def test_link_delays_match_frames_by_tx_id():
    net = {"kind": np.array(["send", "send", "deliver", "deliver", "drop", "deliver"]),
           "tx_id": np.array([7, 3, 3, 7, 7, 9]), "t_ns": np.array([100, 200, 1200, 600, 700, 50])}
    assert link_delays(net).tolist() == [1000 / 1e9, 500 / 1e9]  # tx 9 was never sent in this trace: left out


def test_the_command_prints_the_table_and_writes_the_figures(run_dict, tmp_path, capsys):
    a, b = run_dict(_csma()), run_dict(_csma(seed=4))
    out = tmp_path / "cmp"
    assert main(["compare", str(a.directory), str(b.directory), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "receptions per frame sent" in text and "lost: collision" in text and f"comparison: {out / 'index.html'}" in text
    assert text.startswith("scenarios differ in 1 key (A | B):\n  seed: 3 | 4\nA: ")  # above the table
    assert "seed: 3 | 4" in (out / "index.html").read_text()
    for name in ("compare_traffic", "compare_losses", "compare_delay", "compare_neighbours", "compare_divergence"):
        assert (out / f"{name}.png").read_bytes().startswith(PNG), name
    assert "data:image/png;base64," in (out / "index.html").read_text()


def test_runs_of_different_swarms_are_refused(run_dict, tmp_path, capsys):
    a = run_dict(_csma())
    small = _csma()
    small["groups"][0]["count"] = 10
    b = run_dict(small)
    assert main(["compare", str(a.directory), str(b.directory), "--out", str(tmp_path / "x")]) == 2
    assert "has 40 robots" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", str(a.directory)])


def test_every_difference_between_the_resolved_scenarios_is_listed(run_dict, capsys, tmp_path):
    """The scenarios' differences, key by key, nested and in lists, absent on one side included."""
    from cosim.report.scenario_diff import ABSENT, describe, differences

    a = {"seed": 3, "network": {"backend": "fast", "radio": {"contention": "none"}}, "groups": [{"count": 4}],
         "physics": {"dt": 0.01}}
    b = {"seed": 3, "network": {"backend": "ns3", "radio": {}}, "groups": [{"count": 4}, {"count": 1}],
         "physics": {"dt": 0.01}}
    diffs = differences(a, b)
    assert diffs == [("network.backend", "fast", "ns3"), ("network.radio.contention", "none", ABSENT),
                     ("network.radio", ABSENT, {}), ("groups.1.count", ABSENT, 1)]  # a's keys, then b's own
    assert describe(diffs)[1:3] == ["  network.backend: \"fast\" | \"ns3\"", "  network.radio.contention: \"none\" | (absent)"]
    assert describe(differences(a, a)) == ["scenarios: the same resolved scenario"]
    run = run_dict(_csma())
    assert main(["compare", str(run.directory), str(run.directory), "--out", str(tmp_path / "same")]) == 0
    assert capsys.readouterr().out.startswith("scenarios: the same resolved scenario\n")


def test_a_run_without_its_scenario_is_compared_without_the_list(run_dict, capsys, tmp_path):
    """A torn or deleted scenario.yaml is said, not read as a scenario without keys (which would list
    every key of the other run)."""
    a, b = run_dict(_csma()), run_dict(_csma(seed=4))
    (b.directory / "scenario.yaml").unlink()
    assert main(["compare", str(a.directory), str(b.directory), "--out", str(tmp_path / "torn")]) == 0
    assert capsys.readouterr().out.startswith("scenarios: not compared (B: scenario.yaml cannot be read)\nA: ")
