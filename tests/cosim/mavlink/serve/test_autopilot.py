"""The autopilot of a served vehicle driven directly, with no socket and no MAVLink face: its mode
machine's calls and what it announces (the messages it hands to `send`)."""

import math

import numpy as np
import pytest
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import ARDUPILOT, PX4
from cosim.mavlink.serve.autopilot import Autopilot
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.commands import HANDLERS
from cosim.mavlink.serve.failsafe import GcsFailsafe
from cosim.mavlink.serve.telemetry import global_position
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank


class Pilot:
    """One crazyflie and its autopilot, stepped as the port steps a served vehicle; `said` holds the
    STATUSTEXT it sent."""

    def __init__(self, personality, **kwargs) -> None:
        self.bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
        self.sent = []
        self.ap = Autopilot(QuadBody(self.bank, 0), personality, 1, GeoOrigin(47.0, 8.0, 400.0), self.sent.append, **kwargs)

    @property
    def said(self) -> list[str]:
        return [m.text for m in self.sent if m.get_type() == "STATUSTEXT"]

    def run(self, seconds: float) -> None:
        """Physics at the bank's tick, the autopilot every fourth (as a poll every 10 ms does)."""
        for k in range(round(seconds / self.bank.tick)):
            self.bank.step()
            if k % 4:
                continue
            self.ap.state.now = float(self.bank.t)
            self.ap.supervise()
            self.ap.state.body.update()


def test_arm_take_off_and_land_without_a_socket():
    p = Pilot(ARDUPILOT)
    assert p.ap.set_mode(ARDUPILOT.modes["guided"]) and p.ap.arm(True)
    assert p.ap.state.armed and p.said == ["Arming motors"]  # ArduCopter's words
    assert p.ap.takeoff(3.0)
    p.run(12.0)
    assert p.bank.pos[0, 2] == pytest.approx(3.0, abs=0.15)
    assert p.ap.land()
    p.run(15.0)
    assert p.bank.on_ground[0] and not p.ap.state.armed and p.ap.state.mode == "land"
    assert p.said[-1] == "Disarming motors"


def test_refusals_are_said_and_change_nothing():
    p = Pilot(PX4)
    assert not p.ap.takeoff(5.0) and p.said == ["Takeoff: vehicle not armed"]
    assert not p.ap.set_mode(PX4.modes["rtl"]) and p.ap.state.mode == "hold"
    assert p.said[-1] == "RTL: vehicle not armed"
    assert not p.ap.set_mode(12345) and p.said[-1] == "Mode change: unknown mode 12345"


def test_the_ground_station_failsafe_returns_home_by_itself():
    p = Pilot(ARDUPILOT, gcs_failsafe=GcsFailsafe(timeout_s=2.0, action="return"))
    assert p.ap.set_mode(ARDUPILOT.modes["guided"]) and p.ap.arm(True) and p.ap.takeoff(4.0)
    for _ in range(8):  # a ground station beating once a second during the climb
        p.ap.gcs_heard()
        p.run(1.0)
    p.ap.gcs_heard()  # the last heartbeat
    p.ap.follow_position(6.0, 0.0, 4.0, None)
    p.run(1.5)
    assert p.ap.state.mode == "guided" and p.ap.state.failsafes == []
    p.run(1.5)
    assert p.ap.state.mode == "rtl" and p.ap.state.failsafes == ["Failsafe: GCS lost, return"]
    p.run(40.0)
    assert p.bank.on_ground[0] and np.hypot(*p.bank.pos[0, :2]) < 0.5  # home again, landed


def _upload(p: Pilot, n: int) -> None:
    """A mission of `n` waypoints 5 m up, uploaded through the mission protocol from system 255."""
    gcs = mav.MAVLink(None, srcSystem=255, srcComponent=190)
    server = p.ap.missions.server

    def handle(msg) -> None:
        server.handle(gcs.decode(bytearray(msg.pack(gcs))))

    handle(mav.MAVLink_mission_count_message(1, 1, n, 0))
    for seq in range(n):
        handle(mav.MAVLink_mission_item_int_message(1, 1, seq, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
                                                    mav.MAV_CMD_NAV_WAYPOINT, 0, 1, 0, 0, 0, 0, 470000000 + seq,
                                                    80000000, 5.0, 0))


@pytest.mark.parametrize("personality", [ARDUPILOT, PX4])
def test_mission_start_while_disarmed_is_taken_as_each_firmware_takes_it(personality):
    """ArduCopter enters AUTO and arms nothing (arming in AUTO it then refuses); PX4 enters MISSION and
    arms (their MISSION_START handlers)."""
    p = Pilot(personality)
    start = HANDLERS[mav.MAV_CMD_MISSION_START]
    if personality is PX4:  # nothing uploaded: refused by both
        assert start(p.ap, [0.0] * 7, None) == mav.MAV_RESULT_DENIED
        assert p.said[-1] == "Mission start denied! No valid mission"
    else:
        assert start(p.ap, [0.0] * 7, None) is False
    _upload(p, 3)
    assert p.ap.missions.ready and start(p.ap, [0.0] * 7, None) is True
    if personality is PX4:
        assert p.ap.state.mode == "mission" and p.ap.state.armed
    else:
        assert p.ap.state.mode == "auto" and not p.ap.state.armed
        assert not p.ap.arm(True) and p.said[-1] == "Arm: Auto mode not armable"


def test_mission_starts_first_item_is_taken_as_each_firmware_takes_it():
    """ArduCopter denies a first or last item other than 0; PX4 makes param1 the current item (-1 keeps
    it), so a mission it flew to its end starts again, and denies an item it does not have."""
    start = HANDLERS[mav.MAV_CMD_MISSION_START]
    ardupilot = Pilot(ARDUPILOT)
    _upload(ardupilot, 3)
    assert start(ardupilot.ap, [1.0, 0.0, 0, 0, 0, 0, 0], None) == mav.MAV_RESULT_DENIED
    assert start(ardupilot.ap, [0.0, 2.0, 0, 0, 0, 0, 0], None) == mav.MAV_RESULT_DENIED
    assert ardupilot.ap.state.mode != "auto"
    px4 = Pilot(PX4)
    _upload(px4, 3)
    for bad in (3.0, -2.0, math.nan):
        assert start(px4.ap, [bad, 0, 0, 0, 0, 0, 0], None) == mav.MAV_RESULT_DENIED
    assert not px4.ap.state.armed
    px4.ap.missions.set_current(2)
    assert start(px4.ap, [-1.0, 0, 0, 0, 0, 0, 0], None) is True and px4.ap.missions.seq == 2
    px4.ap.missions.stop()
    assert start(px4.ap, [0.0, 0, 0, 0, 0, 0, 0], None) is True and px4.ap.missions.seq == 0


def test_before_its_position_ardupilot_sends_its_stale_location_and_px4_none():
    """ArduPilot's GLOBAL_POSITION_INT ignores get_location's failure and sends zeros (GCS_Common);
    PX4 streams it only once its global position is valid."""
    ardupilot = Pilot(ARDUPILOT, position_after_s=5.0)
    stale = global_position(ardupilot.ap)
    assert (stale.lat, stale.lon, stale.alt, stale.relative_alt) == (0, 0, 0, 0)
    assert global_position(Pilot(PX4, position_after_s=5.0).ap) is None
    ardupilot.run(5.2)
    assert global_position(ardupilot.ap).lat == 470000000  # at its origin, 47 N, once it has a position
