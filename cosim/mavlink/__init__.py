"""MAVLink in a scenario, four jobs: simulated robots served as MAVLink vehicles (vehicle_endpoint,
autopilot, vehicle_state, personality and their helpers), vehicles flown by real autopilot firmware
in lock-step (sitl_coupling, sitl_json, sitl_standin), the client that talks to real or served
vehicles (adapter, mission_client, remote_robot) and the bridge that puts them on the run's
timeline (bridge); with the frame conversions they share (ENU/NED, geodetic)."""
