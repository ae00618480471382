"""One world at every fidelity: `network.backend` alone moves every shipped scenario with a network
from one engine to the other, reading the same radio description (issue 32)."""

from __future__ import annotations

import contextlib

import pytest
import yaml

import cosim
from cosim.errors import ScenarioError
from tests.conftest import ROOT
from tests.cosim.standins import with_standins

NETWORKED = [p for p in sorted((ROOT / "configs").glob("*.yaml"))
             if (yaml.safe_load(p.read_text()).get("network") or {}).get("backend", "fast") != "none"]


def test_most_shipped_networks_describe_a_standard():
    generic = sorted(p.name for p in NETWORKED if cosim.load(p).network.radio.standard == "generic")
    # Kilobots talk infrared and ROSBuzz's radio carries 250-byte frames: no standard ns-3 models
    assert generic == ["kilolib_edge.yaml", "kilolib_follow.yaml", "kilolib_follow_compiled.yaml", "kilolib_orbit.yaml",
                       "kilombo_follow.yaml", "kilombo_follow_compiled.yaml",
                       "kilombo_follow_group.yaml", "kilombo_orbit.yaml", "rosbuzz_barrier.yaml"]


@pytest.mark.parametrize("path", NETWORKED, ids=[p.name for p in NETWORKED])
def test_the_backend_alone_switches_the_engine(path, tmp_path):
    here = cosim.load(path)
    other = "ns3" if here.network.backend == "fast" else "fast"
    overrides = {"network.backend": other, "duration": 2.0}
    if other == "ns3" and here.network.radio.standard == "generic":
        with pytest.raises(ScenarioError, match=r"network\.radio\.standard: ns-3 models radio standards"):
            cosim.load(path, overrides)
        return
    with contextlib.ExitStack() as stack:
        flipped = with_standins(path, overrides, stack)
        assert flipped.network.radio == here.network.radio  # only the engine changed
        result = cosim.run(flipped, out_dir=tmp_path / "run")
    assert result.status == "ok", result.error
