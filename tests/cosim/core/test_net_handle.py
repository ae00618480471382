"""net.neighbors(): the nodes heard recently, each with exactly the range and bearing that
net.range_to and net.bearing_to give (computed for all of them at once)."""

import cosim
from tests.conftest import base_scenario


def test_neighbors_agree_with_range_to_and_bearing_to():
    data = base_scenario(duration=3.0)
    data["groups"][0]["count"] = 30
    data["groups"][0]["controller"] = {"class": "controllers.library.probes:PeriodicBroadcast",
                                       "params": {"interval": 0.5, "size": 10}}
    sim = cosim.build(cosim.from_dict(data, "n.yaml"))
    sim.run()
    for ctrl in sim.population.controllers[:5]:
        net = ctrl.net
        heard = net.neighbors()
        assert len(heard) >= 5 and [n.id for n in heard] == sorted(n.id for n in heard)
        for n in heard:
            assert n.range_m == net.range_to(n.id) and n.bearing == net.bearing_to(n.id)
            assert 0.0 <= n.age_s <= 2.0 and n.rssi_dbm < 0
