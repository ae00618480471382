"""A served vehicle's missions: the plan kept by the mission protocol, the item a start flies
first, and the mission being flown (cosim.mavlink.serve.missions.flight) while in AUTO/MISSION."""

from __future__ import annotations

from collections.abc import Callable

from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.mission_items import MissionItem
from cosim.mavlink.personality import Personality
from cosim.mavlink.serve.missions.flight import Flight, MissionRunner
from cosim.mavlink.serve.missions.protocol import MissionServer


class MissionControl:
    """`send` a message, `deny(reason)` refuse with a STATUSTEXT (returns False), `flight()` what a
    mission flies with now, `land(at)` begin a landing, `hold()` stop where the vehicle is."""

    def __init__(self, personality: Personality, send: Callable[[object], None], deny: Callable[[str], bool],
                 flight: Callable[[], Flight], land: Callable[[tuple[float, float] | None], None],
                 hold: Callable[[], None]) -> None:
        self.personality = personality
        self._send = send
        self._deny = deny
        self._flight = flight
        self._land = land
        self._hold = hold
        self.server = MissionServer(send, deny, personality.vehicle, self._changed, self.set_current,
                                    self._home_item if personality.home_is_item_0 else None)
        self.runner: MissionRunner | None = None
        self.seq = 0  # the current item while no mission is flown

    @property
    def count(self) -> int:
        """Items in the uploaded mission (ArduPilot's home item included)."""
        return len(self.server.items)

    @property
    def ready(self) -> bool:
        """A mission with something to fly is uploaded (beyond ArduPilot's home item)."""
        return len(self.server.items) > int(self.personality.home_is_item_0)

    def fly(self) -> None:
        """Fly the mission from the current item."""
        first = max(self.seq, int(self.personality.home_is_item_0))
        self.runner = MissionRunner(self.server.items, first, self._flight(), self._send, self._land,
                                    int(self.personality.home_is_item_0))

    def _home_item(self) -> MissionItem:
        """ArduPilot's item 0: a waypoint at home, above sea level (frame MAV_FRAME_GLOBAL)."""
        f = self._flight()
        lat, lon, alt = f.origin.to_geodetic(*f.home)
        return MissionItem(0, mav.MAV_FRAME_GLOBAL, mav.MAV_CMD_NAV_WAYPOINT, (0.0, 0.0, 0.0, 0.0), lat, lon, alt)

    def stop(self) -> None:
        self.runner = None

    def step(self, now: float) -> None:
        self.server.poll(now)
        if self.runner is not None:
            self.runner.step(now)
            self.seq = self.runner.current

    def _changed(self, items: list[MissionItem]) -> None:
        """A new (or cleared) mission: one being flown stops, holding where it is."""
        self.seq = 0
        if self.runner is not None:
            self.runner = None
            self._hold()

    def set_current(self, seq: int) -> bool:
        if not 0 <= seq < len(self.server.items):
            return self._deny(f"Mission: no item {seq}")
        self.seq = seq
        if self.runner is not None:
            self.fly()
        else:
            self._send(self.current_message())
        return True

    def current_message(self):
        """MISSION_CURRENT: the flown mission's progress, or the item a start would fly first."""
        if self.runner is not None:
            return self.runner.current_message()
        total = max(len(self.server.items) - int(self.personality.home_is_item_0), 0)  # ArduPilot's total leaves out home
        state = mav.MISSION_STATE_NOT_STARTED if total else mav.MISSION_STATE_NO_MISSION
        return mav.MAVLink_mission_current_message(self.seq, total, state, 0)
