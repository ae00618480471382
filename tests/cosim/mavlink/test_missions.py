"""The mission protocol and missions flown by a served quadrotor (PX4 and ArduPilot personalities),
driven by pymavlink: mavutil with its waypoint loader (mavwp) for upload and download, and raw
messages for refusals, re-requests and flight.

    pymavlink (UDP) <-> 127.0.0.1:port <-> SimVehicleEndpoint (MissionServer, MissionRunner) <-> QuadrotorBank
"""

import math
import re
import time

import numpy as np
import pytest
from pymavlink import mavutil, mavwp
from pymavlink.dialects.v20 import common as mav

from cosim.mavlink.personality import ARDUPILOT, PX4
from tests.cosim.mavlink.ground_station import SPEED

LAT0, LON0 = 47.0, 8.0  # the vehicle's origin (and home), 400 m above sea level
NORTH_DEG = 1.0 / 111_194.9  # degrees of latitude per metre (the origin's sphere)
EAST_DEG = NORTH_DEG / math.cos(math.radians(LAT0))
REL = mav.MAV_FRAME_GLOBAL_RELATIVE_ALT
WPL = """QGC WPL 110
0\t1\t0\t16\t0\t0\t0\t0\t{lat0}\t{lon0}\t400.0\t1
1\t0\t3\t22\t0\t0\t0\t0\t0\t0\t5.0\t1
2\t0\t3\t16\t1.0\t1.0\t0\t0\t{lat_a}\t{lon0}\t5.0\t1
3\t0\t2\t178\t1\t2.0\t-1\t0\t0\t0\t0\t1
4\t0\t3\t16\t0\t0\t0\t0\t{lat_a}\t{lon_b}\t5.0\t1
5\t0\t2\t20\t0\t0\t0\t0\t0\t0\t0\t1
"""


def wpl(tmp_path):
    path = tmp_path / "mission.waypoints"
    path.write_text(WPL.format(lat0=LAT0, lon0=LON0, lat_a=LAT0 + 20 * NORTH_DEG, lon_b=LON0 + 10 * EAST_DEG))
    return str(path)


@pytest.fixture
def mavlink2(monkeypatch):
    """mavutil speaks MAVLink 2 (mission types other than the mission need it, as on ArduPilot)."""
    monkeypatch.setenv("MAVLINK20", "1")


def gcs_link(port: int):
    link = mavutil.mavlink_connection(f"udpout:127.0.0.1:{port}", source_system=255, source_component=190,
                                      dialect="common")
    link.mav.heartbeat_send(mav.MAV_TYPE_GCS, mav.MAV_AUTOPILOT_INVALID, 0, 0, 0)
    assert link.wait_heartbeat(timeout=10) is not None
    return link


def upload(link, loader: mavwp.MAVWPLoader, first: int = 0) -> int:
    """MAVProxy's way: MISSION_COUNT, then each item as the vehicle requests it (either request form);
    the MISSION_ACK's result."""
    count = loader.count() - first
    link.mav.mission_count_send(link.target_system, link.target_component, count)
    while True:
        m = link.recv_match(type=["MISSION_REQUEST", "MISSION_REQUEST_INT", "MISSION_ACK"], blocking=True, timeout=10)
        assert m is not None, "the vehicle stopped answering during the upload"
        if m.get_type() == "MISSION_ACK":
            return m.type
        item = loader.wp(m.seq + first)
        item.seq, item.target_system, item.target_component = m.seq, link.target_system, link.target_component
        link.mav.send(item)


def download(link) -> list:
    link.mav.mission_request_list_send(link.target_system, link.target_component)
    count = link.recv_match(type="MISSION_COUNT", blocking=True, timeout=10).count
    items = []
    for seq in range(count):
        link.mav.mission_request_int_send(link.target_system, link.target_component, seq)
        items.append(link.recv_match(type="MISSION_ITEM_INT", blocking=True, timeout=10))
    link.mav.mission_ack_send(link.target_system, link.target_component, mav.MAV_MISSION_ACCEPTED)
    return items


@pytest.mark.parametrize("vehicle", [PX4, ARDUPILOT], indirect=True, ids=lambda p: p.name)
def test_mavutil_waypoint_loader_uploads_and_downloads_the_same_mission(vehicle, tmp_path, mavlink2):
    _, endpoint, _ = vehicle
    link = gcs_link(endpoint.port)  # first: it sets the dialect mavwp builds its items in
    loader = mavwp.MAVWPLoader()
    loader.load(wpl(tmp_path))
    first = 0 if endpoint.state.personality.home_is_item_0 else 1  # PX4 keeps no home item
    assert upload(link, loader, first) == mav.MAV_MISSION_ACCEPTED
    got = download(link)
    assert len(got) == loader.count() - first
    for seq, m in enumerate(got):
        want = loader.wp(seq + first)
        assert (m.seq, m.command, m.autocontinue) == (seq, want.command, want.autocontinue)
        if endpoint.state.personality.home_is_item_0:  # ArduPilot answers MISSION_ITEM_INT with MISSION_ITEM's frames (0, 3)
            assert m.frame == want.frame
        else:  # PX4 with their _INT forms
            assert m.frame == {0: mav.MAV_FRAME_GLOBAL_INT, 3: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT}.get(want.frame, want.frame)
        assert (m.param1, m.param2, m.param3) == (want.param1, want.param2, want.param3)
        sent = [float(np.float32(v)) for v in (want.x, want.y)]  # MISSION_ITEM carries float32 degrees
        assert abs(m.x - round(sent[0] * 1e7)) <= 1 and abs(m.y - round(sent[1] * 1e7)) <= 1 and m.z == want.z


def test_items_the_vehicle_cannot_fly_are_refused_and_the_old_mission_kept(vehicle, tmp_path, mavlink2):
    _, endpoint, _gcs = vehicle
    link = gcs_link(endpoint.port)
    loader = mavwp.MAVWPLoader()
    loader.load(wpl(tmp_path))
    assert upload(link, loader, 1) == mav.MAV_MISSION_ACCEPTED
    cases = [(mav.MAV_CMD_DO_SET_SERVO, REL, mav.MAV_MISSION_UNSUPPORTED, "DO_SET_SERVO is not supported"),
             (mav.MAV_CMD_NAV_WAYPOINT, mav.MAV_FRAME_GLOBAL_TERRAIN_ALT, mav.MAV_MISSION_UNSUPPORTED_FRAME, "terrain"),
             (mav.MAV_CMD_NAV_WAYPOINT, mav.MAV_FRAME_LOCAL_NED, mav.MAV_MISSION_UNSUPPORTED_FRAME, "not a global frame")]
    for command, frame, result, reason in cases:
        bad = mavwp.MAVWPLoader()
        bad.add(mav.MAVLink_mission_item_message(1, 1, 0, frame, command, 0, 1, 0, 0, 0, 0, LAT0, LON0, 5.0))
        assert upload(link, bad) == result
        assert reason in link.messages["STATUSTEXT"].text  # sent just before the MISSION_ACK
    assert len(download(link)) == loader.count() - 1  # unchanged
    link.mav.mission_count_send(1, 1, 2, mav.MAV_MISSION_TYPE_FENCE)
    ack = link.recv_match(type="MISSION_ACK", blocking=True, timeout=5)
    assert (ack.type, ack.mission_type) == (mav.MAV_MISSION_UNSUPPORTED, mav.MAV_MISSION_TYPE_FENCE)
    for kind in (mav.MAV_MISSION_TYPE_FENCE, mav.MAV_MISSION_TYPE_RALLY):  # declared empty
        link.mav.mission_request_list_send(1, 1, kind)
        assert link.recv_match(type="MISSION_COUNT", blocking=True, timeout=5).count == 0
        link.mav.mission_count_send(1, 1, 0, kind)
        assert link.recv_match(type="MISSION_ACK", blocking=True, timeout=5).type == mav.MAV_MISSION_ACCEPTED


def test_a_lost_item_is_requested_again_and_a_silent_upload_cancelled(vehicle):
    _, _endpoint, gcs = vehicle
    gcs.beat()
    gcs.send(mav.MAVLink_mission_count_message(1, 1, 3, mav.MAV_MISSION_TYPE_MISSION))
    gcs.wait("MISSION_REQUEST_INT", lambda m: m.seq == 0)
    gcs.send(mav.MAVLink_mission_item_int_message(1, 1, 0, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
                                                  mav.MAV_CMD_NAV_TAKEOFF, 0, 1, 0, 0, 0, math.nan, 0, 0, 5.0))
    requests, end = [], time.monotonic() + 8.0 / SPEED
    while time.monotonic() < end:
        requests += [m.seq for m in gcs.pump(0.05) if m.get_type() == "MISSION_REQUEST_INT"]
    assert requests.count(1) >= 3 and set(requests) == {1}  # the same item, about once a second
    ack = gcs.wait("MISSION_ACK")
    assert ack.type == mav.MAV_MISSION_OPERATION_CANCELLED
    gcs.send(mav.MAVLink_mission_request_list_message(1, 1, mav.MAV_MISSION_TYPE_MISSION))
    assert gcs.wait("MISSION_COUNT").count == 0  # nothing of the broken upload was kept


def send_items(gcs, items: list[tuple]) -> None:
    gcs.send(mav.MAVLink_mission_count_message(1, 1, len(items), 0))
    for seq, (command, params, north, east, alt) in enumerate(items):
        gcs.wait("MISSION_REQUEST_INT", lambda m, s=seq: m.seq == s)
        gcs.send(mav.MAVLink_mission_item_int_message(
            1, 1, seq, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, command, 0, 1, *params,
            round((LAT0 + north * NORTH_DEG) * 1e7) if north is not None else 0,
            round((LON0 + east * EAST_DEG) * 1e7) if east is not None else 0, alt, 0))
    assert gcs.wait("MISSION_ACK").type == mav.MAV_MISSION_ACCEPTED


MISSION = [(mav.MAV_CMD_NAV_TAKEOFF, (0, 0, 0, math.nan), 0.0, 0.0, 5.0),  # where it stands, as QGroundControl writes it
           (mav.MAV_CMD_NAV_WAYPOINT, (1.0, 1.0, 0, math.nan), 12.0, 0.0, 5.0),  # A, hold 1 s, 1 m radius
           (mav.MAV_CMD_DO_CHANGE_SPEED, (1, 2.0, -1, 0), None, None, 0.0),
           (mav.MAV_CMD_NAV_WAYPOINT, (0, 1.0, 0, math.nan), 12.0, 8.0, 5.0),  # B
           (mav.MAV_CMD_DO_JUMP, (1, 1, 0, 0), None, None, 0.0),  # back to A, once
           (mav.MAV_CMD_NAV_RETURN_TO_LAUNCH, (0, 0, 0, 0), None, None, 0.0)]


def test_px4_flies_a_mission_with_a_jump_a_speed_change_and_a_return(vehicle):
    bank, endpoint, gcs = vehicle
    gcs.beat()
    send_items(gcs, MISSION)
    gcs.send(mav.MAVLink_param_set_message(1, 1, b"RTL_RETURN_ALT", 6.0, mav.MAV_PARAM_TYPE_REAL32))
    gcs.wait("PARAM_VALUE")
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 4).result == mav.MAV_RESULT_ACCEPTED  # AUTO.MISSION
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    reached, speeds, end = [], [], time.monotonic() + 120 / SPEED
    while endpoint.state.armed and time.monotonic() < end:
        reached += [m.seq for m in gcs.pump(0.05) if m.get_type() == "MISSION_ITEM_REACHED"]
        if 2 <= len(reached) <= 4:  # after A: the legs flown at DO_CHANGE_SPEED's speed, before the return
            speeds.append(float(np.hypot(*bank.vel[0, :2])))
    # what the vehicle sent before it disarmed may still be on its way (the loop watches its state directly)
    reached += [m.seq for m in gcs.pump(1.0 / SPEED) if m.get_type() == "MISSION_ITEM_REACHED"]
    assert reached == [0, 1, 3, 1, 3, 5]
    assert max(speeds) < 2.3  # DO_CHANGE_SPEED's 2 m/s on the legs after it
    assert not endpoint.state.armed and bank.on_ground[0] and np.hypot(*bank.pos[0, :2]) < 1.0
    assert endpoint.state.mode == "mission"
    gcs.backlog.clear()
    current = gcs.wait("MISSION_CURRENT")
    assert (current.seq, current.total, current.mission_state) == (5, 6, mav.MISSION_STATE_COMPLETE)


def test_px4_climbs_where_it_stands_then_flies_to_the_takeoff_items_position(vehicle):
    """PX4's Mission::handleTakeoff climbs straight up and then makes the take-off item a waypoint at its
    latitude and longitude; real PX4 given a take-off at 0 N 0 E flew toward it after the climb. Ours
    flies to a near one and, like a far waypoint, says and does not fly a take-off or a landing at 0 N 0 E
    (ArduCopter lands where it is at 0, 0)."""
    bank, _, gcs = vehicle
    gcs.beat()
    send_items(gcs, [(mav.MAV_CMD_NAV_TAKEOFF, (0, 0, 0, math.nan), 0.0, 6.0, 5.0),  # 6 m east of where it stands
                     (mav.MAV_CMD_NAV_WAYPOINT, (0, 1.0, 0, math.nan), 8.0, 6.0, 5.0)])
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 4).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    climbing, reached_at, end = [], {}, time.monotonic() + 60 / SPEED + 10
    while 1 not in reached_at and time.monotonic() < end:
        for m in gcs.pump(0.02):
            if m.get_type() == "MISSION_ITEM_REACHED":
                reached_at[m.seq] = bank.pos[0].copy()
        if 0.5 < bank.pos[0, 2] < 4.5 and 0 not in reached_at:
            climbing.append(abs(bank.pos[0, 0]))
    assert climbing and max(climbing) < 0.3  # straight up first
    assert reached_at[0][0] > 3.9 and abs(reached_at[0][2] - 5.0) < 0.5  # then east, within 2 m of the item
    assert math.hypot(reached_at[1][0] - 6.0, reached_at[1][1] - 8.0) < 1.5

    gcs.send(mav.MAVLink_mission_count_message(1, 1, 1, 0))
    gcs.wait("MISSION_REQUEST_INT", lambda m: m.seq == 0)
    gcs.send(mav.MAVLink_mission_item_int_message(1, 1, 0, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, mav.MAV_CMD_NAV_TAKEOFF,
                                                  0, 1, 0, 0, 0, math.nan, 0, 0, 9.0, 0))
    assert gcs.wait("MISSION_ACK").type == mav.MAV_MISSION_ACCEPTED
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 4).result == mav.MAV_RESULT_ACCEPTED
    text = gcs.wait("STATUSTEXT", lambda m: m.text.startswith("Mission 0:"), timeout=60 / SPEED + 10)
    assert re.fullmatch(r"Mission 0: target \d+ km away \(max 100 km\)", text.text)
    gcs.pump(2.0 / SPEED)
    assert math.hypot(bank.pos[0, 0] - 6.0, bank.pos[0, 1] - 8.0) < 1.5 and abs(bank.pos[0, 2] - 9.0) < 0.5
    send_items(gcs, [(mav.MAV_CMD_NAV_LAND, (0, 0, 0, math.nan), None, None, 0.0)])  # at latitude and longitude 0
    del gcs.latest["STATUSTEXT"]
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 4).result == mav.MAV_RESULT_ACCEPTED
    gcs.pump(2.0 / SPEED)  # said as the mission starts, beside the mode's acknowledgement
    assert re.fullmatch(r"Mission 0: target \d+ km away \(max 100 km\)", gcs.latest["STATUSTEXT"].text)
    assert abs(bank.pos[0, 2] - 9.0) < 0.5


def test_jumps_that_loop_with_no_waypoint_end_the_mission_where_the_vehicle_is(vehicle):
    """Two DO_JUMPs sending each other back forever, after waypoint A: as AP_Mission gives up after 64
    jumps in search of a position item, the mission is over and the copter holds at A (it used to
    take a jump for a waypoint and descend towards 0 m with no word)."""
    bank, endpoint, gcs = vehicle
    gcs.beat()
    loop = [MISSION[0], MISSION[1], (mav.MAV_CMD_DO_JUMP, (3, -1, 0, 0), None, None, 0.0),
            (mav.MAV_CMD_DO_JUMP, (2, -1, 0, 0), None, None, 0.0), MISSION[5]]
    send_items(gcs, loop)
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 4).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    text = gcs.wait("STATUSTEXT", lambda m: "DO_JUMP loop" in m.text, timeout=60 / SPEED + 10)
    assert text.text == "Mission: DO_JUMP loop, no waypoint; mission over"
    gcs.pump(5.0 / SPEED)
    assert np.hypot(bank.pos[0, 0] - 0.0, bank.pos[0, 1] - 12.0) < 1.5 and abs(bank.pos[0, 2] - 5.0) < 0.5
    gcs.backlog.clear()
    assert gcs.wait("MISSION_CURRENT").mission_state == mav.MISSION_STATE_COMPLETE
    assert endpoint.state.armed


def test_waypoints_out_of_reach_are_refused_at_upload_or_not_flown(vehicle):
    bank, _, gcs = vehicle
    gcs.beat()
    gcs.send(mav.MAVLink_mission_count_message(1, 1, 2, 0))
    gcs.wait("MISSION_REQUEST_INT", lambda m: m.seq == 0)
    gcs.send(mav.MAVLink_mission_item_int_message(1, 1, 0, REL, mav.MAV_CMD_NAV_TAKEOFF, 0, 1, 0, 0, 0, math.nan,
                                                  0, 0, 1e9, 0))
    assert gcs.wait("MISSION_ACK").type == mav.MAV_MISSION_INVALID
    assert gcs.latest["STATUSTEXT"].text == "Mission: item 0: altitude 1e+09 m (max 20000)"
    north_pole = [MISSION[0], (mav.MAV_CMD_NAV_WAYPOINT, (0, 1.0, 0, math.nan), None, None, 5.0)]
    gcs.send(mav.MAVLink_mission_count_message(1, 1, 2, 0))
    for seq, (command, params, _, _, alt) in enumerate(north_pole):
        gcs.wait("MISSION_REQUEST_INT", lambda m, s=seq: m.seq == s)
        lat, lon = (89.9, 179.0) if seq else (LAT0, LON0)
        gcs.send(mav.MAVLink_mission_item_int_message(1, 1, seq, REL, command, 0, 1, *params, round(lat * 1e7),
                                                      round(lon * 1e7), alt, 0))
    assert gcs.wait("MISSION_ACK").type == mav.MAV_MISSION_ACCEPTED
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4, 4).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    text = gcs.wait("STATUSTEXT", lambda m: m.text.startswith("Mission 1:"), timeout=60 / SPEED + 10)
    assert re.fullmatch(r"Mission 1: target \d+ km away \(max 100 km\)", text.text)
    gcs.pump(3.0 / SPEED)
    assert np.hypot(*bank.pos[0, :2]) < 1.0 and abs(bank.pos[0, 2] - 5.0) < 0.5  # holds where the take-off left it


@pytest.mark.parametrize("vehicle", [ARDUPILOT], indirect=True, ids=["ardupilot"])
def test_ardupilot_keeps_home_at_item_0_and_will_not_arm_in_auto(vehicle):
    """As ArduCopter's source has it (AP_Mission, GCS_Common, ModeAuto): whatever is uploaded as item 0,
    home is item 0 (downloaded as a waypoint at home, frame MAV_FRAME_GLOBAL) and is not flown;
    MISSION_CURRENT's total leaves it out; a DO item run on the way to the next waypoint is reached,
    one after the last waypoint never runs; AUTO is not armable."""
    bank, endpoint, gcs = vehicle
    if not endpoint.state.personality.home_is_item_0:
        pytest.skip("PX4 keeps no home item")  # (its own mission test is above)
    gcs.beat()
    refused = endpoint.state.personality.action_refused
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 3).result == refused  # AUTO without a mission
    assert "no mission" in gcs.latest["STATUSTEXT"].text
    elsewhere = (mav.MAV_CMD_NAV_WAYPOINT, (0, 0, 0, 0), 30.0, 30.0, 9.0)  # not home: replaced by it
    speed = (mav.MAV_CMD_DO_CHANGE_SPEED, (1, 3.0, -1, 0), None, None, 0.0)
    send_items(gcs, [elsewhere, MISSION[1], speed, MISSION[3], speed])
    gcs.send(mav.MAVLink_mission_request_list_message(1, 1, 0))
    count = gcs.wait("MISSION_COUNT").count
    items = []
    for seq in range(count):
        gcs.send(mav.MAVLink_mission_request_int_message(1, 1, seq, 0))
        items.append(gcs.wait("MISSION_ITEM_INT", lambda m, k=seq: m.seq == k))
    assert count == 5
    assert (items[0].frame, items[0].command, items[0].x, items[0].y, items[0].z) == \
        (mav.MAV_FRAME_GLOBAL, mav.MAV_CMD_NAV_WAYPOINT, round(LAT0 * 1e7), round(LON0 * 1e7), 400.0)
    assert [m.frame for m in items[1:]] == [REL, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT, REL, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT]
    gcs.send(mav.MAVLink_request_data_stream_message(1, 1, mav.MAV_DATA_STREAM_EXTENDED_STATUS, 4, 1))  # as a GCS asks
    current = gcs.wait("MISSION_CURRENT")
    assert (current.total, current.mission_state) == (4, mav.MISSION_STATE_NOT_STARTED)  # home left out
    # disarmed, ArduCopter takes MISSION_START as AUTO (real ArduCopter did so) and arms nothing
    assert gcs.command(mav.MAV_CMD_MISSION_START).result == mav.MAV_RESULT_ACCEPTED
    assert endpoint.state.mode == "auto" and not endpoint.state.armed
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == endpoint.state.personality.action_refused
    assert gcs.latest["STATUSTEXT"].text == "Arm: Auto mode not armable"  # the firmware's words
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, 4).result == mav.MAV_RESULT_ACCEPTED  # GUIDED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.latest["STATUSTEXT"].text == "Arming motors"
    assert gcs.command(mav.MAV_CMD_MISSION_START).result == mav.MAV_RESULT_ACCEPTED
    assert endpoint.state.mode == "auto"
    reached = [gcs.wait("MISSION_ITEM_REACHED", timeout=60 / SPEED).seq for _ in range(3)]
    assert reached == [1, 2, 3]  # home (item 0) is not flown; the speed change between the waypoints is reached
    done = gcs.wait("MISSION_CURRENT", lambda m: m.mission_state == mav.MISSION_STATE_COMPLETE, timeout=10 / SPEED)
    assert (done.seq, done.total) == (3, 4)  # the last waypoint stays current; item 4 never ran
    assert all(m.seq != 4 for m in gcs.pump(1.0 / SPEED) if m.get_type() == "MISSION_ITEM_REACHED")
    assert bank.pos[0] == pytest.approx([8.0, 12.0, 5.0], abs=1.0) and endpoint.state.mode == "auto"


def test_rtl_flies_home_and_lands_in_rtl(vehicle):
    """ArduCopter and PX4 stay in RTL down to the ground (the stand-in used to switch to LAND)."""
    bank, endpoint, gcs = vehicle
    gcs.beat()
    guided = (1, 4) if endpoint.state.personality.home_is_item_0 else (1, 4, 3)
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, *guided).result == mav.MAV_RESULT_ACCEPTED
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    up = 4.0 if endpoint.state.personality.home_is_item_0 else 404.0  # PX4's take-off altitude is above sea level (home: 400 m)
    assert gcs.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, up).result == mav.MAV_RESULT_ACCEPTED
    gcs.wait("GLOBAL_POSITION_INT", lambda m: m.relative_alt > 3800, timeout=20 / SPEED)
    if not endpoint.state.personality.home_is_item_0:  # PX4 returns at 60 m by default; ArduCopter at 15
        gcs.send(mav.MAVLink_param_set_message(1, 1, b"RTL_RETURN_ALT", 10.0, mav.MAV_PARAM_TYPE_REAL32))
        gcs.wait("PARAM_VALUE", lambda m: m.param_id == "RTL_RETURN_ALT")
    rtl = endpoint.state.personality.modes["rtl"]
    modes = []
    assert gcs.command(mav.MAV_CMD_DO_SET_MODE, 1, *((rtl,) if endpoint.state.personality.home_is_item_0 else (4, 5))).result \
        == mav.MAV_RESULT_ACCEPTED
    gcs.wait("HEARTBEAT", lambda m: modes.append(m.custom_mode) or not m.base_mode & mav.MAV_MODE_FLAG_SAFETY_ARMED,
             timeout=60 / SPEED)
    assert set(modes) == {rtl} and bank.on_ground[0]  # RTL through the descent and on the ground, disarmed
    refused = endpoint.state.personality.action_refused
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == refused  # RTL prevents arming
    assert gcs.latest["STATUSTEXT"].text == ("Arm: RTL mode not armable" if endpoint.state.personality.home_is_item_0
                                             else "Arming denied: RTL mode prevents arming")


def test_command_int_positions_follow_their_frame(vehicle):
    bank, _endpoint, gcs = vehicle
    gcs.beat()
    assert gcs.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1).result == mav.MAV_RESULT_ACCEPTED
    # PX4 reads COMMAND_LONG's take-off altitude above sea level; COMMAND_INT says its frame: here, above home
    gcs.send(mav.MAVLink_command_int_message(1, 1, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, mav.MAV_CMD_NAV_TAKEOFF, 0, 0,
                                             0, 0, 0, math.nan, 0, 0, 3.0))
    assert gcs.wait("COMMAND_ACK", lambda m: m.command == mav.MAV_CMD_NAV_TAKEOFF).result == mav.MAV_RESULT_ACCEPTED
    gcs.wait("EXTENDED_SYS_STATE", lambda m: m.landed_state == mav.MAV_LANDED_STATE_IN_AIR and bank.pos[0, 2] > 2.8,
             timeout=30 / SPEED)

    def reposition(frame, north, alt):
        gcs.backlog.clear()
        gcs.send(mav.MAVLink_command_int_message(1, 1, frame, mav.MAV_CMD_DO_REPOSITION, 0, 0, -1, 0, 0, math.nan,
                                                 round((LAT0 + north * NORTH_DEG) * 1e7), round(LON0 * 1e7), alt))
        return gcs.wait("COMMAND_ACK", lambda m: m.command == mav.MAV_CMD_DO_REPOSITION).result

    assert reposition(mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, 4.0, 6.0) == mav.MAV_RESULT_ACCEPTED  # 6 m above home
    gcs.wait("GLOBAL_POSITION_INT", lambda m: abs(m.relative_alt - 6000) < 200, timeout=30 / SPEED)
    assert bank.pos[0, 2] == pytest.approx(6.0, abs=0.3)
    assert reposition(mav.MAV_FRAME_GLOBAL_INT, 4.0, 404.0) == mav.MAV_RESULT_ACCEPTED  # 404 m above sea level
    gcs.wait("GLOBAL_POSITION_INT", lambda m: abs(m.relative_alt - 4000) < 200, timeout=30 / SPEED)
    assert reposition(mav.MAV_FRAME_GLOBAL_TERRAIN_ALT_INT, 4.0, 5.0) == mav.MAV_RESULT_DENIED
    assert "terrain" in gcs.latest["STATUSTEXT"].text
    assert reposition(mav.MAV_FRAME_LOCAL_NED, 4.0, 5.0) == mav.MAV_RESULT_DENIED
    assert bank.pos[0, 2] == pytest.approx(4.0, abs=0.5)  # still where the last accepted command put it


def test_a_mission_too_far_or_too_long_is_refused_when_the_scenario_loads():
    import pytest

    from cosim.mavlink.spec import GhostSpec, MissionStep

    with pytest.raises(ValueError, match=r"within 100,000 m of the arena's origin .* got \(1000000000.0, 0.0, 10.0\)"):
        MissionStep((1e9, 0.0, 10.0))
    with pytest.raises(ValueError, match=r"mission: at most 65,533 waypoints .* got 100,000"):
        GhostSpec("g", 14550, mission=(MissionStep((1.0, 1.0, 5.0)),) * 100_000)
