"""MAVLink in a scenario, one subpackage per job: `serve` (simulated robots served as MAVLink vehicles:
their state, autopilot, telemetry, missions and UDP port), `client` (flying a controller on vehicles
reached over MAVLink, real or served), `sitl` (unmodified autopilot firmware in lock-step with the
simulation) and `bridge` (the scenario's side: pacing, served robots, ghost twins of real vehicles).
What they share sits here: the datagram codec, frames, autopilot personalities and their flight
parameters, mission items, rate-limited logging and the scenario's `mavlink` section (`spec`)."""
