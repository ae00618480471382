"""The MAVLink mission protocol on a served vehicle's side: upload (MISSION_COUNT, then the vehicle
requests each item with MISSION_REQUEST_INT, re-requesting after 1 s and cancelling after 5 s of
silence), download (MISSION_REQUEST_LIST, MISSION_REQUEST_INT or MISSION_REQUEST), clear
(MISSION_CLEAR_ALL) and set-current (MISSION_SET_CURRENT), as ArduPilot and PX4 speak it.

ArduPilot keeps home as item 0 (`home` given): whatever was uploaded as item 0, a download sends
home there (NAV_WAYPOINT at home, frame MAV_FRAME_GLOBAL, as AP_Mission::read_cmd_from_storage
does), counts it when nothing else is stored, and sends every item with MISSION_ITEM's frames.

Only the mission type holds items. Fence and rally plans are declared empty: a download answers a
count of 0, clearing them is accepted, and an upload of any item is refused with
MAV_MISSION_UNSUPPORTED and a STATUSTEXT saying so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.mission_items import MissionItem, from_message, problem

log = logging.getLogger(__name__)

RETRY_S = 1.0
"""An item not received this long after its request is requested again."""
GIVE_UP_S = 5.0
"""An upload with no item for this long is cancelled (MAV_MISSION_OPERATION_CANCELLED)."""
MAX_ITEMS = 700
MISSION = mav.MAV_MISSION_TYPE_MISSION


@dataclass
class Upload:
    """An upload in progress: who sends it, how many items, what has arrived."""

    sender: tuple[int, int]
    count: int
    items: list[MissionItem] = field(default_factory=list)
    requested_t: float = 0.0
    heard_t: float = 0.0


class MissionServer:
    """The plans of one vehicle. `send` sends a message, `say` a STATUSTEXT, `vehicle` is "copter" or
    "rover"; `changed(items)` is called with every newly accepted (or cleared) mission, and
    `set_current(seq)` when a ground station picks the current item (it returns False to refuse)."""

    HANDLED = ("MISSION_COUNT", "MISSION_ITEM_INT", "MISSION_ITEM", "MISSION_REQUEST_LIST", "MISSION_REQUEST_INT",
               "MISSION_REQUEST", "MISSION_CLEAR_ALL", "MISSION_SET_CURRENT", "MISSION_ACK")

    def __init__(self, send: Callable[[object], None], say: Callable[[str], None], vehicle: str,
                 changed: Callable[[list[MissionItem]], None], set_current: Callable[[int], bool],
                 home: Callable[[], MissionItem] | None = None) -> None:
        self._send = send
        self._say = say
        self.vehicle = vehicle
        self._changed = changed
        self._set_current = set_current
        self._home = home
        self.items: list[MissionItem] = []
        self.upload: Upload | None = None
        self.now = 0.0

    def handle(self, m) -> None:
        getattr(self, "_on_" + m.get_type().lower())(m)

    def poll(self, now: float) -> None:
        """Re-request a late item; cancel an upload gone silent."""
        self.now = now
        up = self.upload
        if up is None:
            return
        if now - up.heard_t > GIVE_UP_S:
            self.upload = None
            log.warning("mission upload from %d/%d cancelled: no item for %.0f s", *up.sender, GIVE_UP_S)
            self._ack(up.sender, mav.MAV_MISSION_OPERATION_CANCELLED)
        elif now - up.requested_t > RETRY_S:
            self._request(up)

    # -- upload ------------------------------------------------------------------------------------
    def _on_mission_count(self, m) -> None:
        sender = (m.get_srcSystem(), m.get_srcComponent())
        kind = getattr(m, "mission_type", MISSION)
        if kind != MISSION:  # declared empty: clearing them is fine, filling them is refused
            if m.count == 0:
                return self._ack(sender, mav.MAV_MISSION_ACCEPTED, kind)
            self._say(f"Mission: {_type_name(kind)} plans are not supported")
            return self._ack(sender, mav.MAV_MISSION_UNSUPPORTED, kind)
        if self.upload is not None and self.upload.sender != sender:
            return self._ack(sender, mav.MAV_MISSION_DENIED)
        if m.count > MAX_ITEMS:
            self._say(f"Mission: at most {MAX_ITEMS} items")
            return self._ack(sender, mav.MAV_MISSION_NO_SPACE)
        if m.count == 0:
            self.upload = None
            return self._accept(sender, [])
        self.upload = Upload(sender, m.count, heard_t=self.now)
        self._request(self.upload)

    def _on_mission_item_int(self, m) -> None:
        up = self.upload
        sender = (m.get_srcSystem(), m.get_srcComponent())
        if up is None or up.sender != sender:
            return  # a late duplicate after the upload ended, or not the uploader: ignored as the autopilots do
        if m.seq != len(up.items):
            if m.seq < len(up.items):
                return  # a repeat of an item already stored (our request crossed it)
            return self._ack(sender, mav.MAV_MISSION_INVALID_SEQUENCE)
        item = from_message(m)
        why = problem(item, up.count, self.vehicle)
        if why is not None:
            self.upload = None
            self._say(f"Mission: {why[1]}")
            return self._ack(sender, why[0])
        up.items.append(item)
        up.heard_t = self.now
        if len(up.items) == up.count:
            self.upload = None
            return self._accept(sender, up.items)
        self._request(up)

    _on_mission_item = _on_mission_item_int

    def _accept(self, sender: tuple[int, int], items: list[MissionItem]) -> None:
        self.items = list(items)
        self._changed(self.items)
        self._ack(sender, mav.MAV_MISSION_ACCEPTED)

    def _request(self, up: Upload) -> None:
        up.requested_t = self.now
        self._send(mav.MAVLink_mission_request_int_message(*up.sender, len(up.items), MISSION))

    # -- download, clear, current -----------------------------------------------------------------
    def _on_mission_request_list(self, m) -> None:
        sender = (m.get_srcSystem(), m.get_srcComponent())
        kind = getattr(m, "mission_type", MISSION)
        if self.upload is not None:
            return self._ack(sender, mav.MAV_MISSION_DENIED, kind)
        count = max(len(self.items), int(self._home is not None)) if kind == MISSION else 0
        self._send(mav.MAVLink_mission_count_message(*sender, count, kind))

    def _on_mission_request_int(self, m, as_int: bool = True) -> None:
        sender = (m.get_srcSystem(), m.get_srcComponent())
        kind = getattr(m, "mission_type", MISSION)
        if self.upload is not None:
            return self._ack(sender, mav.MAV_MISSION_DENIED, kind)
        home = self._home is not None
        if kind != MISSION or not 0 <= m.seq < max(len(self.items), int(home)):
            return self._ack(sender, mav.MAV_MISSION_INVALID_SEQUENCE, kind)
        item = self._home() if home and m.seq == 0 else self.items[m.seq]
        self._send(item.to_int(*sender, plain_frames=home) if as_int else item.to_float(*sender))

    def _on_mission_request(self, m) -> None:
        self._on_mission_request_int(m, as_int=False)

    def _on_mission_clear_all(self, m) -> None:
        sender = (m.get_srcSystem(), m.get_srcComponent())
        kind = getattr(m, "mission_type", MISSION)
        if self.upload is not None:
            return self._ack(sender, mav.MAV_MISSION_DENIED, kind)
        if kind in (MISSION, mav.MAV_MISSION_TYPE_ALL):
            self.items = []
            self._changed(self.items)
        self._ack(sender, mav.MAV_MISSION_ACCEPTED, kind)

    def _on_mission_set_current(self, m) -> None:
        self._set_current(m.seq)

    def _on_mission_ack(self, m) -> None:
        """The end of a download: nothing to do."""

    def _ack(self, target: tuple[int, int], result: int, kind: int = MISSION) -> None:
        self._send(mav.MAVLink_mission_ack_message(*target, result, kind))


def _type_name(kind: int) -> str:
    names = {mav.MAV_MISSION_TYPE_FENCE: "fence", mav.MAV_MISSION_TYPE_RALLY: "rally"}
    return names.get(kind, f"type {kind}")
