"""The scenario's MAVLink bridge: paces the run to the wall clock, serves simulated robots as
vehicles, and keeps ghost twins of real vehicles in the world.

Every `poll_every` of simulated time the bridge sleeps until the wall clock catches up (at `speed`;
an overrun is counted and logged), lets served vehicles read their commands and send telemetry,
and moves each ghost twin to its vehicle's latest GLOBAL_POSITION_INT (converted to the arena
frame about the scenario's geodetic origin, dead-reckoned between reports). A ghost's controller
runs in the simulation, senses the simulated world and talks over the simulated network; its
motion commands go to the real vehicle as setpoints.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import numpy as np
from pymavlink.dialects.v20 import common as mav

from controllers import Controller
from cosim.core.timeline import Priority
from cosim.core.timeunits import NS_PER_S
from cosim.mavlink.client.adapter import MavlinkError, MavlinkLink, MavlinkVehicle
from cosim.mavlink.client.launch import Wait, streaming_wait, take_off
from cosim.mavlink.client.missions import flight_plan, fly_mission, waypoint
from cosim.mavlink.client.readiness import await_ready
from cosim.mavlink.client.remote_robot import MavlinkRobot
from cosim.mavlink.datagrams import key_from_env
from cosim.mavlink.frames import GeoOrigin, ned_to_enu, yaw_to_heading
from cosim.mavlink.ghosts import Ghost, GhostRobot
from cosim.mavlink.personality import PERSONALITIES
from cosim.mavlink.radio_link import BothWays, GroundStationRelay, VehicleRelay
from cosim.mavlink.relay_metrics import relay_metrics
from cosim.mavlink.serve.bodies import QuadBody, RoverBody
from cosim.mavlink.serve.failsafe import GcsFailsafe
from cosim.mavlink.serve.realtime import Pacer
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from cosim.mavlink.serve.vehicle_port import Transport, VehiclePort
from cosim.mavlink.sitl.radio_relay import SETTLE_S, FirmwareRelay, firmware_relay
from cosim.mavlink.spec import GroundStationSpec, MavlinkSpec
from physics.robot import Robot

log = logging.getLogger(__name__)
class MavlinkBridge:
    """Built from the scenario's `mavlink` section; `groups` maps a group name to (first node, count);
    `scripted_gcs`: the ground-station robot's controller is the ground station (no outside one)."""

    def __init__(self, spec: MavlinkSpec, groups: dict[str, tuple[int, int]], scripted_gcs: bool = False) -> None:
        self.spec = spec
        self.origin = GeoOrigin(*spec.origin)
        self.pacer = Pacer(spec.speed, late_after_s=spec.poll_every_ns / NS_PER_S) if spec.paced else None
        """None when the run is not paced (`mavlink.paced: false`)."""
        self.ports: dict[tuple[str, int], VehiclePort] = {}
        self.endpoints: list[SimVehicleEndpoint] = []
        # (node, personality, transport, sysid, failsafe) of each served vehicle
        self._serve_plan: list[tuple[int, Any, Transport, int, GcsFailsafe]] = []
        self.relays: dict[int, Controller] = {}  # the robots relaying MAVLink over the network (ground_station)
        gcs = spec.ground_station
        self.gcs_node = None if gcs is None else groups[gcs.group][0]
        self.ground_station = None if gcs is None or scripted_gcs else self._ground_station(gcs, spec, groups)
        for e in spec.serve:
            first, count = groups[e.group]
            port = None if gcs is not None and not e.direct else self._port(e.host, e.port, e.signing_key_env)
            for k in range(count):
                transport: Transport = port
                if gcs is not None:
                    radio = self._relay(first + k).transport
                    transport = radio if port is None else BothWays(radio, port)
                self._serve_plan.append((first + k, PERSONALITIES[e.personality], transport, e.first_sysid + k,
                                         e.failsafe()))
        for e in spec.sitl if gcs is not None else ():
            first, count = groups[e.group]
            for k in range(count):
                self.relays[first + k] = firmware_relay(e, k, self.gcs_node)
        self.links: list[MavlinkLink] = []
        self.ghosts: dict[int, Ghost] = {}
        for g in spec.ghosts:
            signing = key_from_env(g.signing_key_env) if g.signing_key_env else None
            link = MavlinkLink(g.host, g.port, signing, mode=g.mode)
            self.links.append(link)
            first, count = groups[g.group]
            for k in range(count):
                vehicle = MavlinkVehicle(link, g.first_sysid + k, PERSONALITIES[g.personality])
                self.ghosts[first + k] = Ghost(first + k, g, vehicle, MavlinkRobot(vehicle))
        self._sim: Any = None
        self._started = False
        self._traced: dict[int, int] = {}  # per served robot: how many of its failsafes are in the trace

    def _port(self, host: str, port: int, signing_key_env: str | None) -> VehiclePort:
        """The UDP port at host:port, shared by the entries that name it (0: a port of its own)."""
        key = (host, port)
        if key in self.ports and port != 0:
            return self.ports[key]
        signing = key_from_env(signing_key_env) if signing_key_env else None
        opened = VehiclePort(port, host, signing)
        self.ports[(host, opened.port)] = opened
        return opened

    def _ground_station(self, gcs: GroundStationSpec, spec: MavlinkSpec,
                        groups: dict[str, tuple[int, int]]) -> GroundStationRelay:
        """The relay of an outside ground station through the ground-station robot (its UDP port open)."""
        entries = spec.serve + spec.sitl
        sysids = {e.first_sysid + k: groups[e.group][0] + k for e in entries for k in range(groups[e.group][1])}
        relay = GroundStationRelay(gcs.host, gcs.udp_port, sysids)
        self.relays[groups[gcs.group][0]] = relay
        return relay

    def _relay(self, node: int) -> VehicleRelay:
        """A served vehicle robot's relay to the ground station's robot."""
        relay = VehicleRelay(self.gcs_node)
        self.relays[node] = relay
        return relay

    def controller_for(self, node: int) -> Controller:
        """The controller of a robot whose group names none: its MAVLink relay (the checks allow no other)."""
        return self.relays[node]

    def robot_for(self, node: int, world: Any, sensors: dict[str, Any], batteries: Any) -> Robot:
        ghost = self.ghosts.get(node)
        if ghost is None:
            return Robot(world, node, sensors, batteries)
        return GhostRobot(world, node, sensors, batteries, ghost)

    # -- the simulation's extension hooks ----------------------------------------------------------
    def start(self, sim: Any) -> None:
        """Serve the simulated vehicles, bring the real ones up (blocking until airborne), start pacing."""
        self._sim = sim
        self._started = True
        world = sim.world
        for node, personality, transport, sysid, failsafe in self._serve_plan:
            self.endpoints.append(SimVehicleEndpoint(self._body(world, node), transport, personality, sysid, self.origin,
                                                     gcs_failsafe=failsafe))
            log.info("robot %d served as MAVLink system %d (%s) on %s", node, sysid, personality.name, _where(transport))
        if self.ghosts:
            world.make_external(list(self.ghosts))
            up: list[MavlinkVehicle] = []
            for ghost in self.ghosts.values():
                up.append(ghost.vehicle)
                self._bring_up(ghost, streaming_wait(up))
        if self.pacer is not None:
            self.pacer.restart()
        sim.clock.queue.push(0, Priority.TIMER, self._poll)

    def _body(self, world: Any, node: int) -> QuadBody | RoverBody:
        slot = int(world.quad_slot[node]) if world.quad_slot.size else -1
        healthy = lambda i=node: bool(world.alive[i])  # noqa: E731  (a dead robot refuses to arm)
        if slot >= 0:
            return QuadBody(world.quads, slot, lambda mode, a, b, c, d, i=node: world.fly(i, mode, a, b, c, d), healthy)
        slot = int(world.drive_slot[node])
        return RoverBody(world.drives, slot, lambda v, w, i=node: world.drive(i, v, w), healthy=healthy)

    def _mission_items(self, ghost: Ghost) -> list:
        """The ghost spec's mission for this vehicle, geodetic about the scenario's origin."""
        s = ghost.spec
        start = self._arena_pos(ghost.vehicle)
        legs = []
        for step in s.mission:
            lat, lon, _ = self.origin.to_geodetic(step.at[0], step.at[1], 0.0)
            legs.append(waypoint(lat, lon, step.at[2] - start[2], step.hold_ns / NS_PER_S, step.radius))
        here_lat, here_lon, _ = self.origin.to_geodetic(start[0], start[1], 0.0)
        return flight_plan(here_lat, here_lon, legs, s.mission_end)

    def _bring_up(self, ghost: Ghost, wait: Wait) -> None:
        """Find the ghost's vehicle and take it off (or start its mission); `wait` keeps those already up streaming."""
        s = ghost.spec
        v = ghost.vehicle
        try:
            await_ready(v, s.connect_timeout_ns / NS_PER_S, self._report, wait)
        except MavlinkError as exc:
            hint = "is the vehicle on and the address right?" if "no heartbeat" in str(exc) else \
                "raise mavlink.ghosts[].connect_timeout to wait longer"
            raise RuntimeError(f"the ghost of robot {ghost.node} (MAVLink {s.host}:{s.port}): {exc}; {hint}") from None
        self._update_twin(ghost)
        log.info("ghost of robot %d: vehicle %d found at %s; taking off", ghost.node, v.sysid, tuple(self._arena_pos(v)))
        if s.mission:
            fly_mission(v, self._mission_items(ghost), wait)
            self._sim.recorder.event(self._sim.clock.now_ns, ghost.node, "ghost_mission",
                                     f"vehicle {v.sysid} flies {len(s.mission)} waypoints, then {s.mission_end}")
        else:
            take_off(v, s.altitude, wait)

    def _report(self, text: str) -> None:
        """A vehicle's stage on its way up: on the run's progress output, and in the log."""
        log.info("%s", text)
        if self._sim.phase is not None:
            self._sim.phase(text)

    def finish(self, sim: Any) -> None:
        """Land the ghosts (if asked) and close every socket; also right after a build (validate)."""
        for ghost in self.ghosts.values() if self._started else ():
            v = ghost.vehicle
            failed = v.failsafe is not None
            v.release()
            if ghost.spec.land_at_end and v.personality.vehicle == "copter" and not failed:
                try:
                    v.command(mav.MAV_CMD_NAV_LAND, timeout_s=0.5)
                except Exception as exc:
                    log.warning("ghost of robot %d: landing command failed: %s", ghost.node, exc)
        for link in self.links:
            link.close()
        for port in self.ports.values():
            port.close()
        if self.ground_station is not None:
            self.ground_station.close()
        for relay in self.relays.values():
            if isinstance(relay, FirmwareRelay):
                relay.close()

    def failures(self) -> list[str]:
        """The real vehicles that stopped doing what was asked (disarmed, landed, left our mode, fell silent)."""
        return [f"ghost of robot {g.node} (MAVLink system {g.vehicle.sysid}): {g.vehicle.failsafe}"
                for g in self.ghosts.values() if g.vehicle.failsafe is not None]

    def metrics(self) -> dict:
        out: dict[str, Any] = {}
        if self.pacer is not None:
            st = self.pacer.stats
            out["realtime"] = {"speed": self.pacer.speed, "polls": st.ticks, "overruns": st.overruns,
                               "worst_late_s": st.worst_late_s}
        mav_stats: dict[str, Any] = {}
        for (host, port_no), port in self.ports.items():
            st = port.stats
            mav_stats[f"{host}:{port_no}"] = {"handled": st.handled, "malformed": st.malformed, "foreign": st.foreign,
                                              "rejected_signature": st.rejected_signature}
        for (node, *_), ep in zip(self._serve_plan, self.endpoints):
            mav_stats[f"served{node}"] = {"failsafes": list(ep.state.failsafes)}
        relay_metrics(mav_stats, self.relays, self.ground_station)
        for ghost in self.ghosts.values():
            mission = ghost.vehicle.mission
            mav_stats[f"ghost{ghost.node}"] = {"stale_events": ghost.stale_events, "failsafe": ghost.vehicle.failsafe,
                                               **({"mission_reached": mission.reached, "mission_complete": mission.complete}
                                                  if mission is not None else {})}
        out["mavlink"] = mav_stats
        return out

    # -- every poll ------------------------------------------------------------------------------
    def _poll(self) -> None:
        sim = self._sim
        now_s = sim.clock.now_ns / NS_PER_S
        if self.pacer is not None:
            self.pacer.wait(now_s)
        if self.ground_station is not None:
            self.ground_station.pump(now_s)
        for port in self.ports.values():
            port.poll(now_s)
        firmware = [r for r in self.relays.values() if isinstance(r, FirmwareRelay)]
        if firmware:
            time.sleep(SETTLE_S)  # the firmwares' last datagrams, still in the kernel's loopback queues
        for relay in self.relays.values():
            if isinstance(relay, VehicleRelay):
                relay.transport.poll(now_s)
        for relay in firmware:
            relay.pump()
        for (node, *_), ep in zip(self._serve_plan, self.endpoints):
            for text in ep.state.failsafes[self._traced.get(node, 0):]:  # what a served vehicle did by itself
                sim.recorder.event(sim.clock.now_ns, node, "served_failsafe", f"vehicle {ep.sysid}: {text}")
            self._traced[node] = len(ep.state.failsafes)
        if self.ghosts:
            wall = time.monotonic()
            for link in self.links:
                link.poll()
            for ghost in self.ghosts.values():
                ghost.vehicle.tick(wall)
                self._watch(ghost, wall)
        nxt = sim.clock.now_ns + self.spec.poll_every_ns
        if nxt <= sim.duration_ns:
            sim.clock.queue.push(nxt, Priority.TIMER, self._poll)

    def _watch(self, ghost: Ghost, wall: float) -> None:
        v = ghost.vehicle
        sim = self._sim
        if v.position_t > ghost.seen_t:
            self._update_twin(ghost)
            if ghost.stale:
                ghost.stale = False
                sim.recorder.event(sim.clock.now_ns, ghost.node, "ghost_fresh", f"telemetry from vehicle {v.sysid} again")
        elif not ghost.stale and wall - ghost.seen_t > ghost.spec.stale_after_ns / NS_PER_S:
            ghost.stale = True
            ghost.stale_events += 1
            age = wall - ghost.seen_t
            sim.recorder.event(sim.clock.now_ns, ghost.node, "ghost_stale", f"no position from vehicle {v.sysid} for {age:.1f} s")
            log.warning("ghost of robot %d: no position from vehicle %d for %.1f s", ghost.node, v.sysid, age)
            w = sim.world
            w.set_external_pose(ghost.node, w.position_of(ghost.node), np.zeros(3), float(w.active_heading[ghost.node]))
        if v.failsafe is not None and ghost.reported_failsafe is None:
            ghost.reported_failsafe = v.failsafe
            sim.recorder.event(sim.clock.now_ns, ghost.node, "ghost_failsafe", v.failsafe)

    def _arena_pos(self, v: MavlinkVehicle) -> np.ndarray:
        g = v.latest["GLOBAL_POSITION_INT"]
        return np.array(self.origin.from_geodetic(g.lat / 1e7, g.lon / 1e7, g.alt / 1000.0))

    def _update_twin(self, ghost: Ghost) -> None:
        v = ghost.vehicle
        g = v.latest["GLOBAL_POSITION_INT"]
        pos = self._arena_pos(v)
        vel = np.array(ned_to_enu(g.vx / 100.0, g.vy / 100.0, g.vz / 100.0))
        heading = yaw_to_heading(math.radians(g.hdg / 100.0)) if g.hdg != 0xFFFF else v.heading()
        lp = v.latest.get("LOCAL_POSITION_NED")
        if lp is not None:
            ghost.offset = pos - np.array(ned_to_enu(lp.x, lp.y, lp.z))
        ghost.seen_t = v.position_t
        self._sim.world.set_external_pose(ghost.node, pos, vel, heading)


def _where(transport: Transport) -> str:
    """Where a served vehicle is reached: its UDP address, or the simulated network."""
    if isinstance(transport, VehiclePort):
        return f"{transport.sock.getsockname()[0]}:{transport.port}"
    return "the simulated network (mavlink.ground_station)"
