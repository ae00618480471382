"""Taking vehicles reached over MAVLink into our hands, and flying controllers on them.

`take_off` asks for telemetry, arms, switches to GUIDED (ArduPilot) or OFFBOARD (PX4, streaming
setpoints first, as PX4 requires), and climbs; it returns only once the vehicle has really climbed
(MavlinkError if it did not within the timeout, or disarmed, landed or left our mode meanwhile),
and from then on the vehicle is watched (`MavlinkVehicle.watch`). On ArduPilot the take-off is
NAV_TAKEOFF alone: no setpoint streams until the climb is done, since a position target in GUIDED
replaces a take-off in progress.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

import numpy as np
from pymavlink.dialects.v20 import common as mav

from controllers import Controller
from cosim.mavlink.client.adapter import MavlinkError, MavlinkLink, MavlinkVehicle
from cosim.mavlink.client.readiness import DEFAULT_CONNECT_TIMEOUT_S, await_ready
from cosim.mavlink.client.remote_robot import MavlinkRobot, NoNetwork, WallClockServices
from cosim.mavlink.personality import PX4

log = logging.getLogger(__name__)

CLIMB_SHARE = 0.5
"""A take-off has happened once the vehicle is this share of the asked altitude higher."""
CLIMB_TIMEOUT_S = 10.0
"""...within this long plus 2 s per metre asked (autopilots climb at 1 to 2.5 m/s by default)."""

Wait = Callable[[float], None]



def streaming_wait(up: list[MavlinkVehicle]) -> Wait:
    """A wait that keeps the vehicles in `up` heard and streaming their setpoints while another is
    brought up: PX4 falls back out of OFFBOARD after COM_OF_LOSS_T (1 s) without them."""

    def wait(seconds: float) -> None:
        now = time.monotonic()
        for link in {id(v.link): v.link for v in up}.values():
            link.poll()
        for v in up:
            v.tick(now)
        time.sleep(seconds)

    return wait


def _pump(vehicle: MavlinkVehicle, sleep: Wait) -> None:
    vehicle.tick(time.monotonic())
    sleep(0.05)
    vehicle.link.poll()


def take_off(vehicle: MavlinkVehicle, altitude_m: float, wait: Wait | None = None,
             climb_timeout_s: float | None = None, connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S) -> None:
    """Arm and climb to `altitude_m` above the current position, holding there; setpoints then
    stream from `tick`. A rover arms and switches to GUIDED, holding where it stands. The climb
    must show within `climb_timeout_s` (default CLIMB_TIMEOUT_S plus 2 s per metre). A vehicle not yet
    ready (cold, no position) is waited for up to `connect_timeout_s`, its stages logged."""
    sleep = wait or time.sleep
    await_ready(vehicle, connect_timeout_s, log.info, sleep)
    for msg_id in (mav.MAVLINK_MSG_ID_LOCAL_POSITION_NED, mav.MAVLINK_MSG_ID_ATTITUDE):
        vehicle.command(mav.MAV_CMD_SET_MESSAGE_INTERVAL, msg_id, 100_000, wait=wait)
    lp = vehicle.latest["LOCAL_POSITION_NED"]
    yaw = vehicle.latest["ATTITUDE"].yaw if "ATTITUDE" in vehicle.latest else 0.0
    rover = vehicle.personality.vehicle == "rover"
    vehicle.setpoint = ("position", lp.x, lp.y, lp.z if rover else lp.z - altitude_m, yaw)
    vehicle.setpoint_t = math.inf  # the take-off setpoint does not go stale
    guided = vehicle.personality.modes.get("guided")
    if rover:
        vehicle.command(mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, guided, wait=wait)
        vehicle.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1, wait=wait)
        vehicle.watch(guided)
        vehicle.streaming = True
        return
    if vehicle.personality is PX4:
        vehicle.streaming = True
        for _ in range(5):  # PX4 enters OFFBOARD only once setpoints stream
            vehicle.tick(time.monotonic())
            sleep(0.05)
        vehicle.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1, wait=wait)
        vehicle.command(mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, 6, 0, wait=wait)
        vehicle.watch(vehicle.personality.modes["offboard"])
    else:
        vehicle.command(mav.MAV_CMD_DO_SET_MODE, mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED, guided, wait=wait)
        vehicle.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1, wait=wait)
        vehicle.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, math.nan, math.nan, math.nan, altitude_m, wait=wait)
        vehicle.watch(guided)
    _await_climb(vehicle, -lp.z, altitude_m, sleep, climb_timeout_s or CLIMB_TIMEOUT_S + 2.0 * altitude_m)
    vehicle.expect_airborne = True
    vehicle.streaming = True


def _await_climb(vehicle: MavlinkVehicle, start_up_m: float, altitude_m: float, sleep: Wait, timeout: float) -> None:
    """Until the vehicle is CLIMB_SHARE of `altitude_m` above `start_up_m`: the effect, not the acknowledgement."""
    end = time.monotonic() + timeout
    while True:
        up = -vehicle.latest["LOCAL_POSITION_NED"].z - start_up_m
        if up >= CLIMB_SHARE * altitude_m:
            return
        if vehicle.failsafe is not None:
            raise MavlinkError(f"vehicle {vehicle.sysid} acknowledged the take-off, then: {vehicle.failsafe}")
        if time.monotonic() > end:
            vehicle.release()
            raise MavlinkError(f"vehicle {vehicle.sysid} acknowledged the take-off but did not climb: {up:.1f} m of "
                               f"{altitude_m:g} m after {timeout:.0f} s")
        _pump(vehicle, sleep)


def fly_controllers(link: MavlinkLink, crews: list[tuple[MavlinkVehicle, Controller]], duration_s: float,
                    altitude_m: float = 2.0, seed: int = 0) -> None:
    """Take each vehicle off, then run each Controller against its vehicle for `duration_s` wall
    seconds: timers and steps in wall-clock time, setpoints streamed and held when stale."""
    up: list[MavlinkVehicle] = []
    for vehicle, _ in crews:
        up.append(vehicle)
        take_off(vehicle, altitude_m, wait=streaming_wait(up))
    services = WallClockServices()
    streams = np.random.SeedSequence(seed).spawn(len(crews))
    for (vehicle, ctrl), stream in zip(crews, streams):
        ctrl.bind(vehicle.sysid, MavlinkRobot(vehicle), NoNetwork(vehicle.sysid), np.random.default_rng(stream), services)
        ctrl.setup()
        if ctrl.period and type(ctrl).steps():
            services.every(ctrl.period, ctrl.step)
    end = time.monotonic() + duration_s
    while time.monotonic() < end:
        link.poll()
        now = time.monotonic()
        for vehicle, _ in crews:
            vehicle.tick(now)
        services.run_due()
        time.sleep(0.01)
