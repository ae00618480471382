"""A ground station written as the controller of the ground-station robot (`mavlink.ground_station`
whose group names a GroundControl subclass): MAVLink to the served vehicles through the simulated
network, on the simulated clock, so the whole run repeats bit for bit from its seed.

Subclass it and fly from `setup`, `step`, timers or `on_mavlink`. Commands go to each vehicle one at
a time, as MAVSDK sends its actions: each is sent again every `COMMAND_TIMEOUT_S` until the vehicle
acknowledges it (at most `COMMAND_RETRIES` more times), and the next goes once it is answered or given
up; `acked` says what came back. Setpoints (`goto`), missions (`upload_mission`, answered as the
vehicle's requests arrive) and `send_to` go at once, once:

    class Survey(GroundControl):
        def setup(self):
            super().setup()
            self.after(2.0, lambda: self.takeoff(1, 5.0))
            self.after(12.0, lambda: self.goto(1, 40.0, 10.0, 5.0))

A subclass that defines `__init__` takes `origin` beside `params` and passes both on.

Vehicles are known from their heartbeats (system id, robot, autopilot). Positions are arena
coordinates (x east, y north, z up, m), placed on the globe about the scenario's geodetic origin
(`mavlink.origin`, which the run hands the ground station): setpoints and waypoints go as latitude,
longitude and height above the vehicle's home, so they mean the same to served vehicles and to
firmware, whose local frames start where each one booted.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from pymavlink.dialects.v20 import common as mav

from controllers import Controller, Message
from cosim.mavlink.client.missions import flight_plan, numbered, same, waypoint
from cosim.mavlink.datagrams import Codec
from cosim.mavlink.frames import heading_to_yaw
from cosim.mavlink.mission_items import from_message
from cosim.mavlink.personality import PX4, Personality
from cosim.mavlink.radio_link import MSGID_RECORD
from cosim.mavlink.vehicle_view import VehicleView, personality_of
from physics.geodesy import GeoOrigin

log = logging.getLogger(__name__)
GCS_SYSID = 255
GCS_COMPONENT = 190
POSITION_ONLY = 0b0000_1101_1111_1000
"""SET_POSITION_TARGET's type mask for a position and a yaw (velocity, acceleration, yaw rate ignored)."""
POSITION_NO_YAW = POSITION_ONLY | 0b0000_0100_0000_0000
COMMAND_TIMEOUT_S = 0.5
COMMAND_RETRIES = 3
"""A command unanswered for COMMAND_TIMEOUT_S is sent again, at most COMMAND_RETRIES times (MAVSDK's
defaults), then given up (its result stays None)."""
DOWNLOAD_RETRY_S = 1.0
DOWNLOAD_RETRIES = 5
"""A mission download's request unanswered for DOWNLOAD_RETRY_S is sent again, DOWNLOAD_RETRIES times at most."""


class GroundControl(Controller):
    """The ground-station robot's controller: vehicles heard, heartbeats sent every second (their
    ground-station failsafe sees a station), commands and setpoints sent through the network."""

    def __init__(self, params: Any = None, origin: GeoOrigin | None = None,
                 directory: dict[int, tuple[int, Personality]] | None = None) -> None:
        super().__init__(params)
        self.origin = GeoOrigin() if origin is None else origin
        """The arena's geodetic origin: the run passes the scenario's `mavlink.origin`."""
        self.directory = dict(directory or {})
        """Each vehicle's system id -> (robot, autopilot), from the scenario: whom it may address unheard."""
        self.codec = Codec(GCS_SYSID, GCS_COMPONENT, None)
        self.vehicles: dict[int, VehicleView] = {}

    def setup(self) -> None:
        """Start the 1 Hz heartbeat (a subclass that overrides setup calls this first)."""
        self.every(1.0, self._heartbeat)

    def on_mavlink(self, vehicle: VehicleView, msg: Any) -> None:
        """Called with each message a vehicle's frame delivered here carries, after `vehicle` took it in."""

    # -- what arrives --------------------------------------------------------------------------------
    def on_message(self, msg: Message) -> None:
        for m in self.codec.parse(msg.payload):
            sysid = m.get_srcSystem()
            vehicle = self.vehicles.get(sysid)
            if vehicle is None:
                if m.get_type() != "HEARTBEAT":
                    continue
                vehicle = VehicleView(sysid, msg.src, personality_of(m), self.origin)
                self.vehicles[sysid] = vehicle
            vehicle.latest[m.get_type()] = m
            if m.get_type() in ("MISSION_REQUEST_INT", "MISSION_REQUEST", "MISSION_ACK"):
                self._mission_answer(vehicle, m)
            if m.get_type() in ("MISSION_COUNT", "MISSION_ITEM_INT"):
                self._downloaded(vehicle, m)
            if m.get_type() == "COMMAND_ACK":
                vehicle.acks[m.command] = m.result
                if vehicle.commands and vehicle.commands[0][0] == m.command and vehicle.sends:
                    self._next_command(vehicle)
            self.on_mavlink(vehicle, m)

    def acked(self, sysid: int, command: int) -> int | None:
        """The MAV_RESULT vehicle `sysid` answered `command` with (None: no answer came)."""
        vehicle = self.vehicles.get(sysid)
        return None if vehicle is None else vehicle.acks.get(command)

    # -- what it sends -------------------------------------------------------------------------------
    def send_to(self, sysid: int, msg: Any) -> None:
        """One MAVLink message to vehicle `sysid` (heard, or in the scenario's directory), into the network now."""
        vehicle = self._vehicle(sysid)
        self.record(MSGID_RECORD, msg.get_msgId())
        self.net.send(vehicle.node, self.codec.pack(msg))

    def command(self, sysid: int, command: int, *params: float, if_accepted: bool = False) -> None:
        """COMMAND_LONG `command` with up to seven parameters (the rest 0), after the vehicle's earlier
        commands; sent again until acknowledged (COMMAND_RETRIES at most). `if_accepted`: only if the
        command before it was accepted (a take-off after a refused arm would be refused anyway; a mission
        started on a disarmed ArduCopter enters AUTO, where it may not arm)."""
        vehicle = self._vehicle(sysid)
        vehicle.commands.append((command, tuple(float(x) for x in params) + (0.0,) * (7 - len(params)), if_accepted))
        if len(vehicle.commands) == 1:
            vehicle.acks.pop(command, None)
            self._send_command(vehicle)

    def _send_command(self, vehicle: VehicleView) -> None:
        """The first waiting command, sent (again: its confirmation counts the sends) and timed."""
        command, params, _ = vehicle.commands[0]
        self.send_to(vehicle.sysid, mav.MAVLink_command_long_message(vehicle.sysid, 1, command, vehicle.sends, *params))
        vehicle.sends += 1
        sent = vehicle.sends
        self.after(COMMAND_TIMEOUT_S, lambda: self._unanswered(vehicle, command, sent))

    def _unanswered(self, vehicle: VehicleView, command: int, sent: int) -> None:
        if not vehicle.commands or vehicle.commands[0][0] != command or vehicle.sends != sent:
            return  # answered meanwhile
        if sent > COMMAND_RETRIES:
            self.record(f"command_given_up.{vehicle.sysid}", command)
            self._next_command(vehicle)
        else:
            self._send_command(vehicle)

    def _next_command(self, vehicle: VehicleView) -> None:
        """The command in flight is done (answered or given up): the next one goes, but one sent only
        `if_accepted` is dropped (a record `command_dropped.<sysid>`) unless this one was accepted."""
        done = vehicle.commands.popleft()[0]
        accepted = vehicle.acks.get(done) == mav.MAV_RESULT_ACCEPTED
        while vehicle.commands and vehicle.commands[0][2] and not accepted:
            self.record(f"command_dropped.{vehicle.sysid}", vehicle.commands.popleft()[0])
        vehicle.sends = 0
        if vehicle.commands:
            vehicle.acks.pop(vehicle.commands[0][0], None)
            self._send_command(vehicle)

    def set_mode(self, sysid: int, name: str, if_accepted: bool = False) -> None:
        """Switch vehicle `sysid` to flight mode `name` (its autopilot's, e.g. guided, offboard, land):
        ArduPilot's mode number in param2, PX4's main and sub mode in param2 and param3."""
        personality = self._vehicle(sysid).personality
        if name not in personality.modes:
            raise ValueError(f"vehicle {sysid} has no mode {name!r}; its modes: {', '.join(personality.modes)}")
        custom = personality.modes[name]
        numbers = (custom >> 16 & 0xFF, custom >> 24 & 0xFF) if personality is PX4 else (custom,)
        self.command(sysid, mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, *numbers, if_accepted=if_accepted)

    def arm(self, sysid: int, arm: bool = True) -> None:
        """Arm (or disarm) vehicle `sysid`."""
        self.command(sysid, mav.MAV_CMD_COMPONENT_ARM_DISARM, 1.0 if arm else 0.0)

    def takeoff(self, sysid: int, altitude_m: float) -> None:
        """Guided mode (ArduPilot), arm, and take off to `altitude_m` above home: three commands in turn,
        the take-off only once armed."""
        if "guided" in self._vehicle(sysid).personality.modes:
            self.set_mode(sysid, "guided")
        self.arm(sysid)
        self.command(sysid, mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, altitude_m, if_accepted=True)

    def goto(self, sysid: int, x: float, y: float, z: float, heading: float | None = None) -> None:
        """Fly vehicle `sysid` to arena position (x, y) at z m above its home (m), facing `heading` (rad
        from east) if given."""
        lat, lon, _ = self.origin.to_geodetic(x, y, 0.0)
        mask = POSITION_NO_YAW if heading is None else POSITION_ONLY
        yaw = 0.0 if heading is None else heading_to_yaw(heading)
        self.send_to(sysid, mav.MAVLink_set_position_target_global_int_message(
            self._ms(), sysid, 1, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, mask, round(lat * 1e7), round(lon * 1e7), z,
            0, 0, 0, 0, 0, 0, yaw, 0))

    def land(self, sysid: int) -> None:
        """Land vehicle `sysid` where it is."""
        self.command(sysid, mav.MAV_CMD_NAV_LAND, 0, 0, 0, math.nan, math.nan, math.nan, 0)

    # -- missions ------------------------------------------------------------------------------------
    def request_streams(self, sysid: int, rate_hz: float = 4.0) -> None:
        """Ask vehicle `sysid` for its global and local position at `rate_hz` (two SET_MESSAGE_INTERVAL
        commands, in turn with its others): a mission's waypoints are placed from them."""
        for msg_id in (mav.MAVLINK_MSG_ID_GLOBAL_POSITION_INT, mav.MAVLINK_MSG_ID_LOCAL_POSITION_NED):
            self.command(sysid, mav.MAV_CMD_SET_MESSAGE_INTERVAL, msg_id, 1e6 / rate_hz)

    def upload_mission(self, sysid: int, waypoints: list[tuple[float, float, float]], end: str = "land",
                       hold_s: float = 0.0, radius_m: float = 0.0) -> None:
        """Offer vehicle `sysid` a mission: take off to the first waypoint's height, fly to each waypoint
        (arena x, y in m; z above home), then `end` (land, rtl or hold). The vehicle asks for each item
        and is answered as its requests arrive; `vehicles[sysid].mission_result` is its verdict, and a
        record `mission_ack.<sysid>`. Needs the vehicle's position (request_streams)."""
        vehicle = self._vehicle(sysid)
        if end not in ("land", "rtl", "hold"):
            raise ValueError(f"end is land, rtl or hold, got {end!r}")
        g = vehicle.latest.get("GLOBAL_POSITION_INT")
        if vehicle.position is None or not waypoints:
            raise ValueError(f"vehicle {sysid}: a mission needs waypoints and the vehicle's position (request_streams first)")
        legs = [waypoint(*self.origin.to_geodetic(x, y, 0.0)[:2], z, hold_s, radius_m) for x, y, z in waypoints]
        items = flight_plan(g.lat / 1e7, g.lon / 1e7, legs, end)
        vehicle.mission = numbered(items, vehicle.personality, g)
        vehicle.mission_result = None
        self.send_to(sysid, mav.MAVLink_mission_count_message(sysid, 1, len(vehicle.mission), 0))

    def start_mission(self, sysid: int) -> None:
        """Fly the uploaded mission from its first item: ArduPilot arms in guided mode and then starts it
        (MISSION_START, once armed); PX4 is sent MISSION_START with first item 0, which arms it and enters
        MISSION (a PX4 keeps a mission across restarts, and one flown to its end would otherwise not fly
        again: it says "Mission finished, landed")."""
        vehicle = self._vehicle(sysid)
        if "guided" in vehicle.personality.modes:
            self.set_mode(sysid, "guided")
            self.arm(sysid)
            self.command(sysid, mav.MAV_CMD_MISSION_START, if_accepted=True)
        else:
            self.command(sysid, mav.MAV_CMD_MISSION_START, 0, 0)

    def _mission_answer(self, vehicle: VehicleView, m: Any) -> None:
        """A mission request answered with its item, or the vehicle's verdict kept."""
        if m.get_type() == "MISSION_ACK":
            vehicle.mission_result = m.type
            self.record(f"mission_ack.{vehicle.sysid}", m.type)
        elif 0 <= m.seq < len(vehicle.mission):
            item = vehicle.mission[m.seq]
            self.send_to(vehicle.sysid, item.to_int(vehicle.sysid, 1))  # as MAVSDK: ArduPilot asks for the int form

    def verify_mission(self, sysid: int) -> None:
        """Download vehicle `sysid`'s mission and compare it with the one uploaded, item by item as the
        int wire form carries them (ArduPilot's home item left out): `vehicles[sysid].mission_verified`
        and a record `mission_verified.<sysid>` (1 or 0). A request unanswered for DOWNLOAD_RETRY_S is
        sent again, DOWNLOAD_RETRIES times at most."""
        vehicle = self._vehicle(sysid)
        vehicle.held = []
        vehicle.held_count = None
        vehicle.mission_verified = None
        self._ask_next(vehicle, 0)

    def _ask_next(self, vehicle: VehicleView, tries: int) -> None:
        """Ask for the count (none yet) or the next item, and again later if nothing has come meanwhile."""
        if vehicle.held_count is None:
            self.send_to(vehicle.sysid, mav.MAVLink_mission_request_list_message(vehicle.sysid, 1, 0))
        else:
            self.send_to(vehicle.sysid, mav.MAVLink_mission_request_int_message(vehicle.sysid, 1, len(vehicle.held), 0))
        asked = (vehicle.held_count, len(vehicle.held))
        self.after(DOWNLOAD_RETRY_S, lambda: self._unheard(vehicle, asked, tries))

    def _unheard(self, vehicle: VehicleView, asked: tuple[int | None, int], tries: int) -> None:
        if vehicle.mission_verified is not None or (vehicle.held_count, len(vehicle.held)) != asked:
            return  # answered meanwhile
        if tries >= DOWNLOAD_RETRIES:
            vehicle.mission_verified = False
            self.record(f"mission_verified.{vehicle.sysid}", 0.0)
        else:
            self._ask_next(vehicle, tries + 1)

    def _downloaded(self, vehicle: VehicleView, m: Any) -> None:
        """The count or the next item of a download: the next asked for, or the comparison made."""
        if m.get_type() == "MISSION_COUNT" and vehicle.held_count is None and vehicle.mission_verified is None:
            vehicle.held_count = m.count
        elif m.get_type() == "MISSION_ITEM_INT" and vehicle.held_count is not None and m.seq == len(vehicle.held):
            vehicle.held.append(from_message(m))
        else:
            return
        if len(vehicle.held) < vehicle.held_count:
            self._ask_next(vehicle, 0)
            return
        self.send_to(vehicle.sysid, mav.MAVLink_mission_ack_message(vehicle.sysid, 1, mav.MAV_MISSION_ACCEPTED, 0))
        skip = int(vehicle.personality.home_is_item_0)
        sent = vehicle.mission[skip:]
        got = vehicle.held[skip:]
        vehicle.mission_verified = len(sent) == len(got) and all(same(a, b) for a, b in zip(sent, got))
        self.record(f"mission_verified.{vehicle.sysid}", float(vehicle.mission_verified))
        if not vehicle.mission_verified:
            odd = next((k for k, (a, b) in enumerate(zip(sent, got)) if not same(a, b)), min(len(sent), len(got)))
            log.warning("vehicle %d holds another mission than was uploaded (%d items, %d sent); first difference at "
                        "item %d: sent %s, held %s", vehicle.sysid, len(got), len(sent), odd + skip,
                        sent[odd] if odd < len(sent) else None, got[odd] if odd < len(got) else None)

    def _vehicle(self, sysid: int) -> VehicleView:
        """Vehicle `sysid` as heard, or as the scenario places it (a first message then makes it hear us)."""
        vehicle = self.vehicles.get(sysid)
        if vehicle is None and sysid in self.directory:
            node, personality = self.directory[sysid]
            vehicle = self.vehicles[sysid] = VehicleView(sysid, node, personality, self.origin)
        if vehicle is None:
            raise ValueError(f"no vehicle with system id {sysid}: none has been heard, and the scenario has "
                             f"{sorted(self.directory) or 'none'}")
        return vehicle

    def _heartbeat(self) -> None:
        hb = mav.MAVLink_heartbeat_message(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, mav.MAV_STATE_ACTIVE, 3)
        for sysid in sorted(self.vehicles):
            self.send_to(sysid, hb)

    def _ms(self) -> int:
        return int(self.now * 1000) & 0xFFFFFFFF


class LinkProbe(GroundControl):
    """A ground station that measures its links: every `period` a TIMESYNC to each vehicle heard (a
    record `ping.<sysid>` of 1 each), and for each answer the round trip (a record `rtt_ms.<sysid>`, in
    ms); what never comes back is lost."""

    @dataclass(frozen=True)
    class Params:
        period: float = 0.5
        """Seconds between probes of each vehicle (a TIMESYNC, which served vehicles answer)."""

    def __init__(self, params: Any = None, origin: GeoOrigin | None = None,
                 directory: dict[int, tuple[int, Personality]] | None = None) -> None:
        super().__init__(params, origin, directory)
        if not self.params.period > 0:
            raise ValueError(f"period must be > 0 s, got {self.params.period}")
        self.sent: dict[tuple[int, int], float] = {}
        self.seq = 0

    def setup(self) -> None:
        super().setup()
        self.every(self.params.period, self._probe)

    def _probe(self) -> None:
        for sysid in sorted(self.vehicles):
            self.seq += 1
            self.sent[(sysid, self.seq)] = self.now
            self.record(f"ping.{sysid}", 1.0)
            self.send_to(sysid, mav.MAVLink_timesync_message(0, self.seq))

    def on_mavlink(self, vehicle: VehicleView, msg: Any) -> None:
        if msg.get_type() == "TIMESYNC" and msg.tc1 != 0:
            start = self.sent.pop((vehicle.sysid, msg.ts1), None)
            if start is not None:
                self.record(f"rtt_ms.{vehicle.sysid}", (self.now - start) * 1e3)
