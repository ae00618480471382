"""What the robots relaying MAVLink over the simulated network counted, for metrics.json: the ground
station's frames into and out of the network, each vehicle's, and the frames not delivered each way."""

from __future__ import annotations

from typing import Any

from controllers import Controller
from cosim.mavlink.radio_link import GroundStationRelay, VehicleRelay
from cosim.mavlink.sitl.radio_relay import FirmwareRelay


def relay_metrics(out: dict[str, Any], relays: dict[int, Controller], gcs: GroundStationRelay | None) -> None:
    """Add to `out` (the bridge's `mavlink` metrics, served vehicles already in) each relay's counts."""
    if gcs is not None:
        out["ground_station"] = {"port": gcs.port, "frames_into_network": gcs.sent_frames,
                                 "frames_delivered": gcs.delivered_frames, "handled": gcs.stats.handled,
                                 "foreign": gcs.stats.foreign, "malformed": gcs.stats.malformed}
    vehicles = [r for r in relays.values() if isinstance(r, (VehicleRelay, FirmwareRelay))]
    for node, relay in relays.items():
        if isinstance(relay, VehicleRelay):
            out[f"served{node}"].update(frames_sent=relay.frames_out, frames_received=relay.frames_in)
        elif isinstance(relay, FirmwareRelay):
            out[f"firmware{node}"] = {"sysid": relay.sysid, "port": relay.port, "frames_sent": relay.frames_out,
                                      "frames_received": relay.frames_in, "unheard": relay.unheard,
                                      "foreign": relay.foreign, "claims": relay.claims, "heard": relay.heard}
    if gcs is not None:
        out["ground_station"].update(frames_lost_to_vehicles=gcs.sent_frames - sum(r.frames_from_station for r in vehicles),
                                     frames_lost_from_vehicles=sum(r.frames_to_station for r in vehicles) - gcs.delivered_frames)
