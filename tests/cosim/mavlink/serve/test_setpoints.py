"""Setpoints in every frame a served vehicle takes (ArduCopter's reading), one step per frame, and
the frames it refuses. The copter takes off to 5 m above its home at the origin, heading east."""

import time

import numpy as np
import pytest
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.personality import ARDUPILOT
from tests.cosim.mavlink.ground_station import SPEED

POS = 0b0000_1111_1111_1000  # x, y, z used
VEL = 0b0000_1111_1100_0111  # vx, vy, vz used
NORTH_DEG = 1.0 / 111_194.9


def local(frame, x=0.0, y=0.0, z=0.0, vx=0.0, vy=0.0, vz=0.0, mask=POS):
    return mav.MAVLink_set_position_target_local_ned_message(0, 1, 1, frame, mask, x, y, z, vx, vy, vz, 0, 0, 0, 0, 0)


def global_int(frame, north_m=0.0, alt=0.0, vn=0.0, mask=POS):
    return mav.MAVLink_set_position_target_global_int_message(0, 1, 1, frame, mask, round((47.0 + north_m * NORTH_DEG) * 1e7),
                                                             round(8.0 * 1e7), alt, vn, 0, 0, 0, 0, 0, 0, 0)


def settle(gcs, bank, target, msg=None, seconds=20.0):
    """Until the copter rests at `target` (ENU); `msg` is resent as a stream would be, if given."""
    end = time.monotonic() + seconds / SPEED
    while time.monotonic() < end:
        if msg is not None:
            gcs.send(msg)
        gcs.pump(0.05)
        if np.linalg.norm(bank.pos[0] - target) < 0.15 and np.linalg.norm(bank.vel[0]) < 0.1:
            return
    raise AssertionError(f"at {bank.pos[0]}, not {target}")


def moving(gcs, bank, msg, velocity):
    end = time.monotonic() + 4.0 / SPEED
    while time.monotonic() < end:
        gcs.send(msg)
        gcs.pump(0.05)
    assert bank.vel[0] == pytest.approx(velocity, abs=0.1)


@pytest.mark.parametrize("vehicle", [ARDUPILOT], indirect=True, ids=["ardupilot"])
def test_each_frame_moves_the_copter_where_it_says(vehicle):
    bank, _, gcs = vehicle
    gcs.wait("HEARTBEAT")
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4).result == mav.MAV_RESULT_ACCEPTED  # GUIDED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, 5.0).result == mav.MAV_RESULT_ACCEPTED
    settle(gcs, bank, [0, 0, 5])
    settle(gcs, bank, [1, 2, 5], local(mav.MAV_FRAME_LOCAL_NED, 2, 1, -5))  # north 2, east 1, 5 m up
    gcs.send(local(mav.MAV_FRAME_LOCAL_OFFSET_NED, 1, 0, 0))  # once: 1 m further north
    settle(gcs, bank, [1, 3, 5])
    gcs.send(local(mav.MAV_FRAME_BODY_OFFSET_NED, 2, 0, -1))  # once: 2 m ahead (east, its heading), 1 m up
    settle(gcs, bank, [3, 3, 6])
    settle(gcs, bank, [0, 0, 6], local(mav.MAV_FRAME_BODY_NED, 0, 0, -6))  # positions as LOCAL_NED
    moving(gcs, bank, local(mav.MAV_FRAME_BODY_NED, vx=1.0, mask=VEL), [1, 0, 0])  # forward = east
    moving(gcs, bank, local(mav.MAV_FRAME_LOCAL_NED, vx=1.0, mask=VEL), [0, 1, 0])  # north
    settle(gcs, bank, [0, 4, 5], global_int(mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, 4.0, 5.0))
    settle(gcs, bank, [0, 4, 3], global_int(mav.MAV_FRAME_GLOBAL_INT, 4.0, 403.0))  # 403 m above sea level
    moving(gcs, bank, global_int(mav.MAV_FRAME_GLOBAL_INT, vn=-1.0, mask=VEL), [0, -1, 0])  # south
    for msg, reason in ((global_int(mav.MAV_FRAME_GLOBAL_TERRAIN_ALT_INT, 4.0, 5.0), "terrain frames"),
                        (local(mav.MAV_FRAME_LOCAL_ENU, 1, 1, 1), "frame LOCAL_ENU not supported")):
        gcs.backlog.clear()
        gcs.send(msg)
        assert reason in gcs.wait("STATUSTEXT").text
