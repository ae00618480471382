"""MAVSDK (the native binding, a real MAVLink client) flies a simulated quadrotor served with the PX4
and with the ArduPilot personality, over UDP on 127.0.0.1:

    MAVSDK (action, telemetry, offboard) <-> 127.0.0.1:port <-> SimVehicleEndpoint <-> QuadrotorBank

It waits for health, arms, takes off to 5 m, flies an offboard velocity leg and a position
setpoint, and lands: the vehicle ends within 0.3 m of the target, on the ground, disarmed.
"""

import asyncio
import math
import threading
import time

import numpy as np
import pytest

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import ARDUPILOT, PX4
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.realtime import run_realtime
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank

SPEED = 4.0


async def until(cond, timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def ask_for_telemetry(telemetry, personality) -> None:
    """What a MAVSDK script must do on ArduPilot, which streams nothing but heartbeats until asked
    (its stand-in here behaves the same); PX4 streams unasked."""
    if personality.streams_unasked:
        return
    for set_rate in (telemetry.set_rate_health, telemetry.set_rate_position, telemetry.set_rate_position_velocity_ned,
                     telemetry.set_rate_attitude_euler, telemetry.set_rate_landed_state):
        await set_rate(10.0)


async def fly(port: int, bank: QuadrotorBank, endpoint: SimVehicleEndpoint) -> None:
    from mavsdk.asyncio import ComponentType, Configuration, Mavsdk
    from mavsdk.asyncio.plugins.action import ActionAsync
    from mavsdk.asyncio.plugins.offboard import OffboardAsync
    from mavsdk.asyncio.plugins.telemetry import TelemetryAsync
    from mavsdk.plugins.offboard import PositionNedYaw, VelocityNedYaw

    async with Mavsdk(Configuration.create_with_component_type(ComponentType.GROUND_STATION)) as m:
        await m.add_any_connection(f"udpout://127.0.0.1:{port}")
        system = await m.first_autopilot(timeout_s=10.0)
        assert system is not None, "MAVSDK did not discover the vehicle"
        telemetry, action, offboard = TelemetryAsync(system), ActionAsync(system), OffboardAsync(system)
        await ask_for_telemetry(telemetry, endpoint.state.personality)
        end = time.monotonic() + 10
        while not await telemetry.health_all_ok():
            assert time.monotonic() < end, await telemetry.health()
            await asyncio.sleep(0.1)
        await action.set_takeoff_altitude(5.0)
        await action.arm()
        await action.takeoff()
        await until(lambda: abs(bank.pos[0, 2] - 5.0) < 0.05 and abs(bank.vel[0, 2]) < 0.05, 12 / SPEED * 4, "5 m")
        await offboard.set_velocity_ned(VelocityNedYaw(0.0, 0.0, 0.0, 0.0))
        await offboard.start()
        await offboard.set_velocity_ned(VelocityNedYaw(1.0, 0.0, 0.0, 0.0))  # north, 1 m/s
        await until(lambda: bank.pos[0, 1] > 1.5, 10, "a northward leg")
        assert bank.vel[0, 1] == pytest.approx(1.0, abs=0.1) and abs(bank.vel[0, 0]) < 0.1
        await offboard.set_position_ned(PositionNedYaw(5.0, 2.0, -5.0, 0.0))  # 5 m north, 2 m east, 5 m up
        target = np.array([2.0, 5.0, 5.0])  # the same point in ENU
        await until(lambda: np.linalg.norm(bank.pos[0] - target) < 0.1 and np.linalg.norm(bank.vel[0]) < 0.05,
                    20, "the position setpoint")
        await offboard.stop()
        await action.land()
        await until(lambda: not endpoint.state.armed, 20, "landing and disarming")


@pytest.mark.parametrize("personality", [PX4, ARDUPILOT], ids=lambda p: p.name)
def test_mavsdk_flies_the_simulated_vehicle(personality):
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
    endpoint = SimVehicleEndpoint(QuadBody(bank, 0), 0, personality, origin=GeoOrigin(47.0, 8.0, 400.0))
    stop = threading.Event()
    thread = threading.Thread(target=run_realtime, args=(bank, [endpoint], 600.0), kwargs={"speed": SPEED, "stop": stop})
    thread.start()
    try:
        asyncio.run(asyncio.wait_for(fly(endpoint.port, bank, endpoint), 60))
    finally:
        stop.set()
        thread.join()
        endpoint.close()
    assert bank.pos[0, 2] == 0.0 and not endpoint.state.armed
    assert math.dist(bank.pos[0, :2], (2.0, 5.0)) < 0.3


NORTH_DEG = 1.0 / 111_194.9  # degrees of latitude per metre about the origin


async def fly_mission(port: int, bank: QuadrotorBank, endpoint: SimVehicleEndpoint) -> list[int]:
    """MAVSDK's mission plugin: upload three waypoints (the last one with a loiter and the return
    after the mission), verify them by download, arm, start, follow the progress to the end."""
    from mavsdk.asyncio import ComponentType, Configuration, Mavsdk
    from mavsdk.asyncio.plugins.action import ActionAsync
    from mavsdk.asyncio.plugins.mission import MissionAsync
    from mavsdk.asyncio.plugins.param import ParamAsync
    from mavsdk.asyncio.plugins.telemetry import TelemetryAsync
    from mavsdk.plugins.mission import MissionItem, MissionPlan
    from mavsdk.plugins.param import ParamError

    def item(north: float, east: float, loiter_s: float = math.nan) -> MissionItem:
        return MissionItem(47.0 + north * NORTH_DEG, 8.0 + east * NORTH_DEG / math.cos(math.radians(47.0)), 5.0,
                           3.0, False, math.nan, math.nan, MissionItem.CameraAction.NONE, loiter_s, 1.0, 1.0,
                           math.nan, math.nan, MissionItem.VehicleAction.NONE)

    async with Mavsdk(Configuration.create_with_component_type(ComponentType.GROUND_STATION)) as m:
        await m.add_any_connection(f"udpout://127.0.0.1:{port}")
        system = await m.first_autopilot(timeout_s=10.0)
        mission, action, telemetry = MissionAsync(system), ActionAsync(system), TelemetryAsync(system)
        await ask_for_telemetry(telemetry, endpoint.state.personality)
        end = time.monotonic() + 10
        while not await telemetry.health_all_ok():
            assert time.monotonic() < end, await telemetry.health()
            await asyncio.sleep(0.1)
        param = ParamAsync(system)  # the return altitude under the autopilot's own name, default and unit
        ardupilot = endpoint.state.personality is ARDUPILOT
        name, default, ours, (fast, too_fast) = (("RTL_ALT", 1500.0, 800.0, ("WPNAV_SPEED", 5000.0)) if ardupilot
                                                 else ("RTL_RETURN_ALT", 60.0, 8.0, ("MPC_XY_VEL_MAX", 30.0)))
        assert await param.get_param_float(name) == default
        await param.set_param_float(name, ours)
        assert await param.get_param_float(name) == ours and endpoint.autopilot.params[name] == ours
        with pytest.raises(ParamError):  # beyond the firmware's range
            await param.set_param_float(fast, too_fast)
        plan = MissionPlan([item(0.0, 0.0), item(10.0, 0.0), item(10.0, 6.0, loiter_s=1.0)])
        if endpoint.state.personality is ARDUPILOT:
            return await _ardupilot_mission(mission, action, bank, endpoint, plan)
        await mission.set_return_to_launch_after_mission(True)  # a NAV_RETURN_TO_LAUNCH item at the end
        await mission.upload_mission(plan)
        got = await mission.download_mission()
        assert [(round(i.latitude_deg, 6), round(i.longitude_deg, 6), i.relative_altitude_m) for i in got.mission_items] \
            == [(round(i.latitude_deg, 6), round(i.longitude_deg, 6), i.relative_altitude_m) for i in plan.mission_items]
        await action.arm()
        await mission.start_mission()
        progress, heights = [], []
        end = time.monotonic() + 120 / SPEED
        while not await mission.is_mission_finished() or endpoint.state.armed:  # the return is its last item
            assert time.monotonic() < end, f"mission not finished: {progress}"
            progress.append(endpoint.autopilot.missions.seq)
            heights.append(float(bank.pos[0, 2]))
            await asyncio.sleep(0.02)
        assert max(heights) == pytest.approx(8.0, abs=0.3)  # the return climbed to RTL_RETURN_ALT as set
        return progress


async def _ardupilot_mission(mission, action, bank, endpoint, plan) -> list[int]:
    """What MAVSDK 4.1 meets on ArduCopter firmware (checked against it): the download fails on the
    firmware's home item (item 0, frame MAV_FRAME_GLOBAL), the mission flies from item 1 (MAVSDK's
    first waypoint is where home is kept) to the last waypoint, but MAVSDK never reports it finished
    (the DO_CHANGE_SPEED after the last waypoint never runs, so it is never reached); RTL then flies
    home and lands in RTL."""
    from mavsdk.plugins.mission import MissionError

    await mission.upload_mission(plan)
    with pytest.raises(MissionError, match="UNSUPPORTED"):
        await mission.download_mission()
    await action.arm()
    await mission.start_mission()
    progress, last = [], np.array([6.0, 10.0, 5.0])  # the last waypoint (ENU)
    end = time.monotonic() + 60 / SPEED
    while np.linalg.norm(bank.pos[0] - last) > 0.5 or np.linalg.norm(bank.vel[0]) > 0.1:
        assert time.monotonic() < end, f"the last waypoint was not reached: {progress}, at {bank.pos[0]}"
        progress.append(endpoint.autopilot.missions.seq)
        await asyncio.sleep(0.02)
    await asyncio.sleep(3.0 / SPEED)  # the mission is over (MISSION_CURRENT says so), yet
    assert not await mission.is_mission_finished() and endpoint.state.mode == "auto"
    await action.return_to_launch()
    modes = set()
    while endpoint.state.armed:
        assert time.monotonic() < end + 60 / SPEED, "RTL did not land"
        if endpoint.state.landing:
            modes.add(endpoint.state.mode)
        await asyncio.sleep(0.02)
    assert modes == {"rtl"} and endpoint.state.mode == "rtl"  # RTL all the way down, as ArduCopter does (not LAND)
    return progress


@pytest.mark.parametrize("personality", [PX4, ARDUPILOT], ids=lambda p: p.name)
def test_mavsdk_uploads_verifies_and_flies_a_mission(personality):
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
    endpoint = SimVehicleEndpoint(QuadBody(bank, 0), 0, personality, origin=GeoOrigin(47.0, 8.0, 400.0))
    stop = threading.Event()
    thread = threading.Thread(target=run_realtime, args=(bank, [endpoint], 600.0), kwargs={"speed": SPEED, "stop": stop})
    thread.start()
    try:
        progress = asyncio.run(asyncio.wait_for(fly_mission(endpoint.port, bank, endpoint), 60))
    finally:
        stop.set()
        thread.join()
        endpoint.close()
    assert progress == sorted(progress) and len(set(progress)) >= 3  # the items in order
    assert bank.on_ground[0] and not endpoint.state.armed and math.hypot(*bank.pos[0, :2]) < 1.0  # home again
