"""Autopilot firmware in lock-step with the simulation through ArduPilot's JSON SITL interface, and a
stand-in for the firmware's side of it."""
