"""The served-vehicle fixture: a simulated quadrotor served in a thread paced at SPEED times real
time (`vehicle`, parametrised by personality), with a ground station client. Its ground-station
failsafe waits 60 s, not the firmware's 5 s: the client beats only while the test listens, and a
test process starved for 1.25 s on a loaded machine would trip it (test_failsafe.py covers it)."""

import threading

import numpy as np
import pytest

from cosim.mavlink.frames import GeoOrigin
from cosim.mavlink.personality import PX4
from cosim.mavlink.serve.bodies import QuadBody
from cosim.mavlink.serve.failsafe import GcsFailsafe
from cosim.mavlink.serve.realtime import run_realtime
from cosim.mavlink.serve.vehicle_endpoint import SimVehicleEndpoint
from physics.bodies.quadrotor import AIRFRAMES, QuadrotorBank
from tests.cosim.mavlink.ground_station import SPEED, Client


@pytest.fixture
def vehicle(request):
    personality = getattr(request, "param", PX4)
    bank = QuadrotorBank([AIRFRAMES["crazyflie"]], np.array([[0.0, 0.0, 0.0]]))
    endpoint = SimVehicleEndpoint(QuadBody(bank, 0), 0, personality, sysid=1, origin=GeoOrigin(47.0, 8.0, 400.0),
                                  gcs_failsafe=GcsFailsafe(timeout_s=60.0))
    stop = threading.Event()
    thread = threading.Thread(target=run_realtime, args=(bank, [endpoint], 600.0), kwargs={"speed": SPEED, "stop": stop})
    thread.start()
    yield bank, endpoint, Client(endpoint.port)
    stop.set()
    thread.join()
    endpoint.close()
