"""Topology analytics: graph metrics on known graphs, and the sampler inside routed runs."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import cosim
from cosim.errors import ScenarioError
from cosim.topology.graph_metrics import algebraic_connectivity, betweenness, graph_of, sample
from tests.conftest import base_scenario
from tests.cosim.report.test_report import routed_scenario

S = 1_000_000_000


def test_metrics_of_a_path_and_of_two_islands():
    path = graph_of(5, np.array([[0, 1], [1, 2], [2, 3], [3, 4]]), np.ones(5, dtype=bool))
    s = sample(7, path, spectral_max=100)
    assert (s.nodes, s.edges, s.components, s.diameter, s.largest_fraction) == (5, 4, 1, 4, 1.0)
    assert s.algebraic_connectivity == pytest.approx(2 * (1 - math.cos(math.pi / 5)))
    islands = graph_of(5, np.array([[0, 1], [2, 3], [3, 4]]), np.array([True, True, True, True, False]))
    s = sample(7, islands, spectral_max=100)
    assert (s.nodes, s.edges, s.components, s.diameter, s.largest_fraction) == (4, 2, 2, 1, 0.5)
    assert s.algebraic_connectivity == 0.0
    assert math.isnan(sample(7, path, spectral_max=4).algebraic_connectivity)


def test_betweenness_of_a_star_is_all_at_its_centre():
    star = nx.star_graph(4)
    assert betweenness(star, 6, exact_max=10).tolist() == [1.0, 0, 0, 0, 0, 0]
    assert algebraic_connectivity(star) == pytest.approx(1.0)


def _chain(tmp_path, name, **output):
    data = routed_scenario() | {"duration": 12.0, "output": {"trace": {"positions_every": 0.5}, **output}}
    data["groups"] = data["groups"][:1]  # the five motes 30 m apart, radio range 40 m: a path graph
    return cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path / name)


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    return _chain(tmp_path_factory.mktemp("topology"), "run", topology={"every": 1.0})


def test_a_static_chain_is_sampled_as_a_path(chain):
    out = cosim.read_run(chain.directory)
    table = out.traces["topology"].to_pandas()
    assert table.t_ns.tolist() == [k * S for k in range(13)]
    later = table[table.t_ns >= 2 * S]  # once every mote has heard its neighbours (hellos)
    assert set(later.components) == {1} and set(later.diameter) == {4} and set(later.edges) == {4}
    assert np.allclose(later.algebraic_connectivity, 2 * (1 - math.cos(math.pi / 5)))
    m = chain.metrics["topology"]
    assert m["samples"] == 13


def test_routes_on_a_path_are_shortest_and_the_relays_carry_the_load(chain):
    m = chain.metrics["topology"]
    stretch = m["route_stretch"]
    assert stretch["packets"] == chain.metrics["routing"]["data_delivered"]
    assert stretch["mean"] == 1.0 and stretch["shortest_fraction"] == 1.0  # a path has one route
    nodes = cosim.read_run(chain.directory).traces["topology_nodes"].to_pandas()
    assert nodes.forwarded[[0, 4]].tolist() == [0, 0] and (nodes.forwarded[[1, 2, 3]] > 0).all()
    assert nodes.betweenness.idxmax() == 2  # the middle mote lies on most shortest paths
    assert m["betweenness_vs_forwarding"]["pearson"] > 0.8


def test_sampling_does_not_change_results(tmp_path, chain):
    plain = _chain(tmp_path, "plain")
    assert plain.metrics["trace_sha256"] == chain.metrics["trace_sha256"]
    assert "topology" not in plain.metrics


def test_an_unrouted_run_gets_graph_metrics_only(tmp_path):
    data = base_scenario(duration=2.0, output={"topology": {"every": 0.5, "window": 1.0}})
    result = cosim.run(cosim.from_dict(data, source="test.yaml"), out_dir=tmp_path / "run")
    m = result.metrics["topology"]
    assert m["samples"] == 5 and "route_stretch" not in m and m["mean_edges"] > 0
    assert not (result.directory / "trace" / "topology_nodes.parquet").exists()


def test_bad_topology_settings_name_the_key():
    with pytest.raises(ScenarioError, match=r"output.topology: window must be a positive duration"):
        cosim.from_dict(base_scenario(output={"topology": {"window": 0}}), source="s.yaml")
    with pytest.raises(ScenarioError, match=r"output.topology.sample: unknown key"):
        cosim.from_dict(base_scenario(output={"topology": {"sample": 3}}), source="s.yaml")


def test_topology_reaches_sweeps_and_the_report(chain, tmp_path):
    from cosim.report.writer import write_report
    from cosim.sweep.index import flatten

    flat = flatten(chain.metrics)
    assert flat["topology.route_stretch.mean"] == 1.0 and flat["topology.mean_diameter_hops"] > 3
    out = write_report(chain.directory, tmp_path / "report")
    for name in ("topology.png", "forwarding_load.png"):
        assert (out.parent / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
