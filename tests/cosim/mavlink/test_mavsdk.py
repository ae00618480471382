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

from cosim.mavlink.bodies import QuadBody
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import ARDUPILOT, PX4
from cosim.mavlink.realtime import run_realtime
from cosim.mavlink.vehicle_endpoint import SimVehicleEndpoint
from physics.quadrotor import AIRFRAMES, QuadrotorBank

SPEED = 4.0


async def until(cond, timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


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
        await until(lambda: not endpoint.armed, 20, "landing and disarming")


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
    assert bank.pos[0, 2] == 0.0 and not endpoint.armed
    assert math.dist(bank.pos[0, :2], (2.0, 5.0)) < 0.3
