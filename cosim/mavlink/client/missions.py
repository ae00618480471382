"""Missions on a vehicle reached over MAVLink, from our side: upload (answering the vehicle's
MISSION_REQUEST_INT or MISSION_REQUEST), verification by download, start, and progress from
MISSION_CURRENT and MISSION_ITEM_REACHED, for both dialects (ArduPilot keeps home as item 0, which
is sent and stripped here; it starts with MAV_CMD_MISSION_START after arming in GUIDED; PX4 is
sent MAV_CMD_MISSION_START from item 0, which arms it and switches to MISSION).

    items = [takeoff(47.3977, 8.5456, 5), waypoint(47.3978, 8.5457, 5, hold_s=2), rtl()]
    fly_mission(vehicle, items)          # upload, verify, arm, start; watched from then on
    vehicle.mission.reached, vehicle.mission.complete
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.client.adapter import MavlinkError, MavlinkVehicle
from cosim.mavlink.mission_items import MissionItem, MissionProgress
from cosim.mavlink.personality import PX4, Personality

REL = mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
Wait = Callable[[float], None]


def waypoint(lat: float, lon: float, rel_alt: float, hold_s: float = 0.0, radius_m: float = 0.0) -> MissionItem:
    return MissionItem(0, REL, mav.MAV_CMD_NAV_WAYPOINT, (hold_s, radius_m, 0.0, math.nan), lat, lon, rel_alt)


def takeoff(lat: float, lon: float, rel_alt: float) -> MissionItem:
    """A take-off to `rel_alt` m above home, at (lat, lon): where the vehicle stands, as QGroundControl
    writes it. ArduCopter climbs where it is whatever they say; PX4 climbs and then flies there, so
    zeros would send it toward 0 N 0 E."""
    return MissionItem(0, REL, mav.MAV_CMD_NAV_TAKEOFF, (0.0, 0.0, 0.0, math.nan), lat, lon, rel_alt)


def land(lat: float, lon: float) -> MissionItem:
    """A landing at (lat, lon), flown to at the current altitude first. Both autopilots fly there; at 0, 0
    ArduCopter lands where it is, PX4 heads for 0 N 0 E."""
    return MissionItem(0, REL, mav.MAV_CMD_NAV_LAND, (0.0, 0.0, 0.0, math.nan), lat, lon, 0.0)


def rtl() -> MissionItem:
    return MissionItem(0, mav.MAV_FRAME_MISSION, mav.MAV_CMD_NAV_RETURN_TO_LAUNCH, (0.0, 0.0, 0.0, 0.0), 0.0, 0.0, 0.0)


def flight_plan(lat: float, lon: float, legs: list[MissionItem], end: str) -> list[MissionItem]:
    """A take-off where the vehicle stands (lat, lon) to the first leg's height, the `legs` (waypoints),
    then `end`: land at the last leg, rtl, or hold there."""
    ending = {"land": [land(legs[-1].lat, legs[-1].lon)], "rtl": [rtl()], "hold": []}[end]
    return [takeoff(lat, lon, legs[0].alt), *legs, *ending]



def numbered(items: list[MissionItem], personality: Personality, g: Any) -> list[MissionItem]:
    """Items with their sequence numbers; ArduPilot's home item first, where the vehicle is (`g`: its
    latest GLOBAL_POSITION_INT, or None); also the scripted ground station's (cosim.mavlink.ground_control)."""
    if personality.home_is_item_0:
        home = MissionItem(0, mav.MAV_FRAME_GLOBAL_INT, mav.MAV_CMD_NAV_WAYPOINT, (0.0, 0.0, 0.0, 0.0),
                           g.lat / 1e7 if g else 0.0, g.lon / 1e7 if g else 0.0, g.alt / 1000.0 if g else 0.0)
        items = [home, *items]
    return [MissionItem(k, i.frame, i.command, i.params, i.lat, i.lon, i.alt, i.autocontinue) for k, i in enumerate(items)]


def _await(vehicle: MavlinkVehicle, kinds: tuple[str, ...], timeout_s: float, sleep: Wait):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        for k, m in enumerate(vehicle.mission_inbox):
            if m.get_type() in kinds:
                del vehicle.mission_inbox[: k + 1]
                return m
        vehicle.tick(time.monotonic())
        sleep(0.01)
        vehicle.link.poll()
    return None


def upload(vehicle: MavlinkVehicle, items: list[MissionItem], wait: Wait | None = None, timeout_s: float = 5.0) -> None:
    """Send `items` as the vehicle's mission; MavlinkError with its reason if it refuses them."""
    sleep = wait or time.sleep
    numbered_items = numbered(items, vehicle.personality, vehicle.latest.get("GLOBAL_POSITION_INT"))
    vehicle.mission_inbox.clear()
    for _ in range(3):  # a lost MISSION_COUNT is sent again
        vehicle.link.send(mav.MAVLink_mission_count_message(vehicle.sysid, 1, len(numbered_items), 0))
        m = _await(vehicle, ("MISSION_REQUEST_INT", "MISSION_REQUEST", "MISSION_ACK"), 1.0, sleep)
        if m is not None:
            break
    while m is not None and m.get_type() != "MISSION_ACK":
        item = numbered_items[m.seq]
        as_int = m.get_type() == "MISSION_REQUEST_INT"
        vehicle.link.send(item.to_int(vehicle.sysid, 1) if as_int else item.to_float(vehicle.sysid, 1))
        m = _await(vehicle, ("MISSION_REQUEST_INT", "MISSION_REQUEST", "MISSION_ACK"), timeout_s, sleep)
    if m is None:
        raise MavlinkError(f"vehicle {vehicle.sysid} stopped answering during the mission upload")
    if m.type != mav.MAV_MISSION_ACCEPTED:
        reason = vehicle.statustext[-1] if vehicle.statustext else "no STATUSTEXT"
        result = mav.enums["MAV_MISSION_RESULT"][m.type].name
        raise MavlinkError(f"vehicle {vehicle.sysid} refused the mission ({result}): {reason}")


def download(vehicle: MavlinkVehicle, wait: Wait | None = None, timeout_s: float = 2.0) -> list[MissionItem]:
    """The vehicle's mission as it holds it (ArduPilot's home item left out)."""
    sleep = wait or time.sleep
    vehicle.mission_inbox.clear()
    vehicle.link.send(mav.MAVLink_mission_request_list_message(vehicle.sysid, 1, 0))
    count = _await(vehicle, ("MISSION_COUNT",), timeout_s, sleep)
    if count is None:
        raise MavlinkError(f"vehicle {vehicle.sysid} did not answer MISSION_REQUEST_LIST")
    got = []
    for seq in range(count.count):
        vehicle.link.send(mav.MAVLink_mission_request_int_message(vehicle.sysid, 1, seq, 0))
        m = _await(vehicle, ("MISSION_ITEM_INT",), timeout_s, sleep)
        if m is None:
            raise MavlinkError(f"vehicle {vehicle.sysid} did not send mission item {seq}")
        got.append(MissionItem(m.seq, m.frame, m.command, (m.param1, m.param2, m.param3, m.param4), m.x / 1e7,
                               m.y / 1e7, m.z, bool(m.autocontinue)))
    vehicle.link.send(mav.MAVLink_mission_ack_message(vehicle.sysid, 1, mav.MAV_MISSION_ACCEPTED, 0))
    return got[1:] if vehicle.personality.home_is_item_0 else got


def same(sent: MissionItem, got: MissionItem) -> bool:
    """Equal as the int wire form carries them (1e-7 degrees, float32 parameters). A parameter sent as
    NaN ("unset") is the autopilot's to fill: ArduCopter answers NAV_TAKEOFF's and NAV_WAYPOINT's yaw
    as 0 and NAV_LAND's as 1."""
    def close(a: float, b: float, tol: float) -> bool:
        return math.isnan(a) or abs(a - b) <= tol

    params = all(close(a, b, 1e-4 * max(1.0, abs(a))) for a, b in zip(sent.params, got.params))
    return (sent.command == got.command and close(sent.lat, got.lat, 2e-7) and close(sent.lon, got.lon, 2e-7)
            and close(sent.alt, got.alt, 1e-3) and params)


def fly_mission(vehicle: MavlinkVehicle, items: list[MissionItem], wait: Wait | None = None) -> None:
    """Upload `items`, verify them by download, arm and start; from then on the vehicle is watched
    (armed, in AUTO/MISSION) until its last item is reached, and `vehicle.mission` tracks progress."""
    upload(vehicle, items, wait)
    got = download(vehicle, wait)
    if len(got) != len(items) or not all(same(a, b) for a, b in zip(items, got)):
        raise MavlinkError(f"vehicle {vehicle.sysid} holds a different mission than was uploaded ({len(got)} items)")
    offset = int(vehicle.personality.home_is_item_0)
    vehicle.mission = MissionProgress(total=len(items), offset=offset)
    if vehicle.personality is PX4:  # from item 0, armed, in MISSION: also a mission PX4 kept and flew to its end
        vehicle.command(mav.MAV_CMD_MISSION_START, 0, 0, wait=wait)
        vehicle.watch(vehicle.personality.modes["mission"])
    else:
        guided = vehicle.personality.modes["guided"]
        vehicle.command(mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, guided, wait=wait)
        vehicle.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1, wait=wait)
        vehicle.command(mav.MAV_CMD_MISSION_START, wait=wait)
        vehicle.watch(vehicle.personality.modes["auto"])
