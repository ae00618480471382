"""configs/anthocnet_vs_aodv.yaml run with AntHocNet and with ns-3's AODV over the same mobility:
AntHocNet delivers at least what AODV delivers to every pair AODV serves, and its packet trace has
no loop and no double delivery."""

import pyarrow.parquet as pq
import pytest

import cosim
from tests.conftest import ROOT

CONFIG = ROOT / "configs" / "anthocnet_vs_aodv.yaml"


def per_pair(result) -> dict[tuple[int, int], int]:
    """Packets delivered (once each) per (source, destination)."""
    p = pq.read_table(result.directory / "trace" / "packets.parquet").to_pydict()
    sent_to = {(s, q): d for k, s, d, q in zip(p["kind"], p["src"], p["dst"], p["seq"]) if k == "send"}
    got = {(s, q) for k, s, q in zip(p["kind"], p["src"], p["seq"]) if k == "recv"}
    out = {(s, d): 0 for (s, _), d in sent_to.items()}
    for s, q in got:
        out[(s, sent_to[(s, q)])] += 1
    return out


@pytest.mark.parametrize("seed", [2, 4])
def test_anthocnet_serves_every_pair_at_least_as_well_as_aodv(seed, tmp_path):
    first = {"seed": seed, "duration": 30.0}  # a quarter of the config's 120 s: enough for the five pairs AODV serves
    ant = cosim.run(cosim.load(CONFIG, first), out_dir=tmp_path / "anthocnet")
    aodv = cosim.run(cosim.load(CONFIG, first | {"network.routing.protocol": "aodv"}), out_dir=tmp_path / "aodv")
    assert ant.status == aodv.status == "ok"
    routing = ant.metrics["routing"]
    assert (routing["revisits"], routing["duplicate_deliveries"]) == (0, 0)
    # one measure of neighbourhood and of overhead for both
    assert ant.metrics["routing"]["mean_neighbors_in_range"] == aodv.metrics["routing"]["mean_neighbors_in_range"] > 3
    assert aodv.metrics["routing"]["control_bytes_per_delivered"] > 0 < routing["control_bytes_per_delivered"]
    for r in (routing, aodv.metrics["routing"]):  # MAC-level counts, the same for both: frames, then transmissions
        assert r["phy_transmissions"] > r["mac_frames_queued"] > r["control_frames"] > 0
    a, o = per_pair(ant), per_pair(aodv)
    served = [pair for pair, n in o.items() if n > 0]
    assert len(served) == 5
    assert all(a[pair] >= o[pair] for pair in served), {pair: (a[pair], o[pair]) for pair in served}
