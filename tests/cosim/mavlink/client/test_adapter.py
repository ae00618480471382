"""Our adapter flies two simulated vehicles served on one UDP port, each driven by a Controller:
a closed loop through real MAVLink.

    GoTo controller -> MavlinkRobot -> MavlinkVehicle (sysid 1) \\
                                                                 >- UDP 127.0.0.1:port -> VehiclePort -> QuadrotorBank
    GoTo controller -> MavlinkRobot -> MavlinkVehicle (sysid 2) /
"""

import math
import threading
import time

import numpy as np
import pytest

from cosim.mavlink.client.adapter import MavlinkError, MavlinkLink, MavlinkVehicle
from cosim.mavlink.client.launch import fly_controllers, take_off
from cosim.mavlink.client.remote_robot import MavlinkRobot
from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import ARDUPILOT, PX4
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.realtime import run_realtime
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from cosim.mavlink.serve.vehicle_port import VehiclePort
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank
from tests.controllers.compiled.probes import Cruiser, Ranger
from tests.controllers.helpers import Command, GoTo


@pytest.fixture
def two_vehicles(request):
    personality = request.param
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]] * 2, np.array([[0.0, 0.0, 0.0], [4.0, 0.0, 0.0]]))
    port = VehiclePort(0)
    endpoints = [SimVehicleEndpoint(QuadBody(bank, i), port, personality, sysid=i + 1, origin=GeoOrigin(47.0, 8.0, 400.0))
                 for i in range(2)]
    stop = threading.Event()
    thread = threading.Thread(target=run_realtime, args=(bank, [port], 600.0), kwargs={"speed": 2.0, "stop": stop})
    thread.start()
    link = MavlinkLink("127.0.0.1", port.port)
    yield bank, endpoints, link, personality
    stop.set()
    thread.join()
    link.close()
    port.close()


@pytest.mark.parametrize("two_vehicles", [PX4, ARDUPILOT], indirect=True, ids=["px4", "ardupilot"])
def test_two_vehicles_on_one_port_each_end_where_their_controller_sent_them(two_vehicles):
    bank, endpoints, link, personality = two_vehicles
    crews = [(MavlinkVehicle(link, 1, personality), GoTo(GoTo.Params(offset=(2.0, 3.0, 3.0)))),
             (MavlinkVehicle(link, 2, personality), GoTo(GoTo.Params(offset=(-1.0, -2.0, 2.0), heading=1.0)))]
    fly_controllers(link, crews, duration_s=7.0, altitude_m=2.0)
    assert all(e.state.armed for e in endpoints)
    assert np.linalg.norm(bank.pos[0] - [2.0, 3.0, 3.0]) < 0.3
    assert np.linalg.norm(bank.pos[1] - [3.0, -2.0, 2.0]) < 0.3
    assert abs(bank.euler[1, 2] - 1.0) < 0.1
    assert all(c.steps >= 5 for _, c in crews)


@pytest.mark.parametrize("two_vehicles", [PX4], indirect=True, ids=["px4"])
def test_a_refused_command_raises_with_the_reason(two_vehicles):
    _, _, link, personality = two_vehicles
    vehicle = MavlinkVehicle(link, 1, personality)
    with pytest.raises(MavlinkError, match="refused command 22"):
        vehicle.command(22, 0, 0, 0, 0, 0, 0, 405.0)  # take off while disarmed
    with pytest.raises(MavlinkError, match="did not acknowledge"):
        MavlinkVehicle(link, 9, personality).command(400, 1, retries=2, timeout_s=0.2)  # nobody is system 9


@pytest.mark.parametrize("two_vehicles", [PX4], indirect=True, ids=["px4"])
def test_a_pilot_taking_over_stops_the_adapter(two_vehicles):
    _, endpoints, link, personality = two_vehicles
    crews = [(MavlinkVehicle(link, 1, personality), GoTo(GoTo.Params(offset=(2.0, 0.0, 3.0))))]
    pilot = threading.Timer(3.0, lambda: endpoints[0].autopilot.set_mode(personality.modes["posctl"]))
    pilot.start()
    fly_controllers(link, crews, duration_s=5.0, altitude_m=2.0)
    vehicle = crews[0][0]
    assert not vehicle.streaming and "mode changed to posctl" in vehicle.failsafe


@pytest.mark.parametrize("two_vehicles", [PX4], indirect=True, ids=["px4"])
def test_a_silent_vehicle_is_reported_lost(two_vehicles):
    _, endpoints, link, personality = two_vehicles
    vehicle = MavlinkVehicle(link, 1, personality)
    vehicle.heartbeat_timeout_s = 1.0
    take_off(vehicle, 2.0)
    assert vehicle.streaming and vehicle.failsafe is None
    endpoints[0].codec.mav.srcSystem = 77  # the vehicle's radio now speaks for another system: system 1 falls silent
    end = time.monotonic() + 10.0  # leaves as soon as the loss is seen (about 1 s; more on a stalled machine)
    while time.monotonic() < end and vehicle.streaming:
        link.poll()
        vehicle.tick(time.monotonic())
        time.sleep(0.01)
    assert not vehicle.streaming and "vehicle lost" in vehicle.failsafe


@pytest.mark.parametrize("two_vehicles", [ARDUPILOT], indirect=True, ids=["ardupilot"])
def test_a_rejected_arming_raises_with_the_pre_arm_reason(two_vehicles):
    bank, endpoints, link, personality = two_vehicles
    bank.alive[0] = False  # a failed motor: the vehicle reports itself unhealthy and will not arm
    vehicle = MavlinkVehicle(link, 1, personality)
    with pytest.raises(MavlinkError, match=r"refused command 400 .*PreArm: vehicle not healthy"):
        take_off(vehicle, 2.0)
    assert not endpoints[0].state.armed and vehicle.latest["SYS_STATUS"].onboard_control_sensors_health == 0
    assert take_off(MavlinkVehicle(link, 2, personality), 2.0) is None  # its healthy neighbour arms


def test_the_adapter_drops_telemetry_no_vehicle_can_send():
    """A NaN position or a latitude past the pole from the vehicle's address never reaches a twin."""
    import math
    import socket

    from pymavlink.dialects.v20 import common as mav

    link = MavlinkLink("127.0.0.1", 0, mode="listen")
    vehicle = MavlinkVehicle(link, 1, ARDUPILOT)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    codec = mav.MAVLink(None, srcSystem=1, srcComponent=1)
    sent = [mav.MAVLink_local_position_ned_message(0, 1.0, 2.0, -3.0, 0, 0, 0),
            mav.MAVLink_local_position_ned_message(0, math.nan, 2.0, -3.0, 0, 0, 0),
            mav.MAVLink_attitude_message(0, 0.0, math.inf, 0.0, 0, 0, 0),
            mav.MAVLink_global_position_int_message(0, 950_000_000, 0, 0, 0, 0, 0, 0, 0),
            mav.MAVLink_global_position_int_message(0, 470_000_000, 80_000_000, 0, 0, 0, 0, 0, 0)]
    for m in sent:
        sender.sendto(m.pack(codec), ("127.0.0.1", link.port))
    time.sleep(0.1)
    link.poll()
    assert link.refused == 3
    assert vehicle.position_enu().tolist() == [2.0, 1.0, 3.0]
    assert "ATTITUDE" not in vehicle.latest and vehicle.latest["GLOBAL_POSITION_INT"].lat == 470_000_000
    sender.close()
    link.close()


@pytest.mark.parametrize("personality", [PX4, ARDUPILOT], ids=lambda p: p.name)
def test_a_take_off_acknowledged_but_not_flown_raises(personality):
    """A vehicle that acknowledges GUIDED/OFFBOARD, arming and take-off but never climbs (as real
    ArduCopter did under our old take-off): take_off says so instead of flying controllers on it."""
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
    deaf = QuadBody(bank, 0, command=lambda *args: None)  # motion commands go nowhere
    endpoint = SimVehicleEndpoint(deaf, 0, personality, origin=GeoOrigin(47.0, 8.0, 400.0))
    stop = threading.Event()
    thread = threading.Thread(target=run_realtime, args=(bank, [endpoint], 600.0), kwargs={"speed": 2.0, "stop": stop})
    thread.start()
    link = MavlinkLink("127.0.0.1", endpoint.port)
    try:
        vehicle = MavlinkVehicle(link, 1, personality)
        with pytest.raises(MavlinkError, match=r"acknowledged the take-off but did not climb: 0\.0 m of 2 m after 2 s"):
            take_off(vehicle, 2.0, climb_timeout_s=2.0)
        assert endpoint.state.armed and not vehicle.streaming and not vehicle.watching
    finally:
        stop.set()
        thread.join()
        link.close()
        endpoint.close()


@pytest.mark.parametrize("two_vehicles", [ARDUPILOT], indirect=True, ids=["ardupilot"])
def test_a_vehicle_that_disarms_or_lands_by_itself_is_a_failsafe(two_vehicles):
    bank, endpoints, link, personality = two_vehicles
    first, second = MavlinkVehicle(link, 1, personality), MavlinkVehicle(link, 2, personality)
    take_off(first, 2.0)
    take_off(second, 2.0)
    assert bank.pos[0, 2] > 1.0 and first.watching and first.failsafe is None
    endpoints[0].state.armed = False  # the firmware disarms on its own (as real ArduCopter did after our take-off)
    end = time.monotonic() + 3.0
    while time.monotonic() < end and first.failsafe is None:
        link.poll()
        first.tick(time.monotonic())
        time.sleep(0.01)
    # a disarmed copter falls: on a busy machine its landed state can reach the adapter before the
    # heartbeat that says disarmed; either way the adapter stops commanding and says why
    assert first.failsafe in ("the vehicle disarmed by itself: no longer commanding",
                              "the vehicle is landing or landed by itself (a failsafe on board?): no longer commanding")
    assert not first.streaming
    landed = mavlink_extended_sys_state(mav_landed=4)  # LANDING, still in GUIDED and armed
    second.receive(landed)
    assert "landing or landed by itself" in second.failsafe and not second.streaming


def mavlink_extended_sys_state(mav_landed: int):
    from pymavlink.dialects.v20 import common as mav

    return mav.MAVLink_extended_sys_state_message(mav.MAV_VTOL_STATE_MC, mav_landed)


def _await_position(vehicle: MavlinkVehicle) -> None:
    end = time.monotonic() + 10.0
    while "GLOBAL_POSITION_INT" not in vehicle.latest:
        assert time.monotonic() < end, "no telemetry"
        vehicle.tick(time.monotonic())
        vehicle.link.poll()
        time.sleep(0.02)


@pytest.mark.parametrize("two_vehicles", [PX4, ARDUPILOT], indirect=True, ids=["px4", "ardupilot"])
def test_the_adapter_uploads_verifies_and_flies_a_mission(two_vehicles):
    from pymavlink.dialects.v20 import common as mav

    from cosim.mavlink.client.missions import fly_mission, rtl, takeoff, waypoint

    bank, endpoints, link, personality = two_vehicles
    vehicle = MavlinkVehicle(link, 1, personality)
    _await_position(vehicle)
    link.send(mav.MAVLink_param_set_message(1, 1, b"RTL_RETURN_ALT", 4.0, mav.MAV_PARAM_TYPE_REAL32))
    north = 47.0 + 6.0 / 111_194.9
    g = vehicle.latest["GLOBAL_POSITION_INT"]
    fly_mission(vehicle, [takeoff(g.lat / 1e7, g.lon / 1e7, 3.0), waypoint(north, 8.0, 3.0, hold_s=1.0, radius_m=0.5), rtl()])
    assert endpoints[0].state.mode == ("mission" if personality is PX4 else "auto") and vehicle.watching
    end = time.monotonic() + 40.0
    while not (vehicle.mission.complete and not endpoints[0].state.armed):
        assert time.monotonic() < end, f"mission not over: {vehicle.mission}"
        vehicle.tick(time.monotonic())
        link.poll()
        time.sleep(0.02)
    assert vehicle.mission.reached == [0, 1, 2] and vehicle.failsafe is None  # the landing and disarm were the mission's
    assert bank.on_ground[0] and np.hypot(*bank.pos[0, :2]) < 0.6


@pytest.mark.parametrize("two_vehicles", [ARDUPILOT], indirect=True, ids=["ardupilot"])
def test_a_mission_the_vehicle_refuses_raises_with_its_reason(two_vehicles):
    from pymavlink.dialects.v20 import common as mav

    from cosim.mavlink.client.missions import upload
    from cosim.mavlink.mission_items import MissionItem

    _, _, link, personality = two_vehicles
    vehicle = MavlinkVehicle(link, 1, personality)
    _await_position(vehicle)
    terrain = MissionItem(0, mav.MAV_FRAME_GLOBAL_TERRAIN_ALT_INT, mav.MAV_CMD_NAV_WAYPOINT, (0, 0, 0, 0), 47.0, 8.0, 5.0)
    with pytest.raises(MavlinkError, match=r"refused the mission \(MAV_MISSION_UNSUPPORTED_FRAME\): .*terrain"):
        upload(vehicle, [terrain])


@pytest.mark.parametrize("two_vehicles", [PX4, ARDUPILOT], indirect=True, ids=["px4", "ardupilot"])
def test_a_controller_hands_its_vehicle_a_mission_and_follows_it(two_vehicles):
    """From the controller API: robot.fly_mission after the take-off; motion commands are refused
    while it runs, and the progress is the vehicle's own report."""
    from controllers import Controller

    class Survey(Controller):
        period = 0.5

        def setup(self) -> None:
            self.robot.fly_mission([(0.0, 4.0, 3.0), (3.0, 4.0, 3.0)], hold_s=0.5, end="land", radius_m=0.3)
            self.refused, self.progress = None, []

        def step(self) -> None:
            self.progress.append(list(self.robot.mission_progress().reached))
            try:
                self.robot.set_velocity(1.0)
            except ValueError as exc:
                self.refused = str(exc)

    bank, endpoints, link, personality = two_vehicles
    survey = Survey()
    fly_controllers(link, [(MavlinkVehicle(link, 1, personality), survey)], duration_s=12.0, altitude_m=2.0)
    assert survey.progress[-1] == [0, 1, 2, 3] and "flies a mission" in survey.refused
    assert bank.pos[0] == pytest.approx([3.0, 4.0, 0.0], abs=0.5) and not endpoints[0].state.armed


@pytest.mark.parametrize("two_vehicles", [PX4], indirect=True, ids=["px4"])
def test_a_mavlink_vehicle_takes_the_command_matrix_as_simulated_bodies_do(two_vehicles):
    """The command matrix's MAVLink cells (tests/physics/test_command_matrix.py has the simulated
    bodies): set_heading then a body-frame set_velocity yaw the served quadrotor and fly it along the
    heading; wheel commands and non-position flight modes are refused by name. A ghost's controller
    commands its vehicle through this same MavlinkRobot."""
    bank, _, link, personality = two_vehicles
    probe = Command(Command.Params(method="set_heading", args=(1.0,), then="set_velocity", then_args=(0.5, 0.0, 0.0),
                                   repeat=True))
    idle = GoTo(GoTo.Params(offset=(0.0, 0.0, 2.0)))
    fly_controllers(link, [(MavlinkVehicle(link, 1, personality), probe), (MavlinkVehicle(link, 2, personality), idle)],
                    duration_s=5.0)
    v = bank.vel[0]
    assert abs(bank.euler[0, 2] - 1.0) < 0.1
    assert abs(math.atan2(v[1], v[0]) - 1.0) < 0.1 and math.hypot(v[0], v[1]) == pytest.approx(0.5, abs=0.1)
    robot = MavlinkRobot(MavlinkVehicle(link, 1, personality))
    assert robot.moves_sideways
    with pytest.raises(ValueError, match="not drive"):
        robot.drive(0.1, 0.1)
    with pytest.raises(ValueError, match="its wheels are the autopilot's"):
        robot.set_wheel_speeds(0.1, 0.1)
    with pytest.raises(ValueError, match="takes position setpoints"):
        robot.fly("attitude", 0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize("two_vehicles", [PX4], indirect=True, ids=["px4"])
def test_a_compiled_controller_flies_a_vehicle_and_refuses_what_a_lone_vehicle_cannot_know(two_vehicles):
    """The same CompiledController flies over MAVLink: its compiled velocity command flies the served
    quadrotor; asking for another robot's range, which a vehicle without a simulated network cannot
    know, raises with the reason instead of reading nothing."""
    bank, _, link, personality = two_vehicles
    cruiser = Cruiser()
    idle = GoTo(GoTo.Params(offset=(0.0, 0.0, 2.0)))
    fly_controllers(link, [(MavlinkVehicle(link, 1, personality), cruiser), (MavlinkVehicle(link, 2, personality), idle)],
                    duration_s=4.0)
    assert cruiser.state["steps"][0] >= 5
    assert bank.vel[0, 0] == pytest.approx(0.5, abs=0.1) and bank.pos[0, 0] > 0.5
    with pytest.raises(ValueError, match="no pose known for that node here"):
        fly_controllers(link, [(MavlinkVehicle(link, 2, personality), Ranger())], duration_s=1.0)
