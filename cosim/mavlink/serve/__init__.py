"""Simulated robots served as MAVLink 2 vehicles: the vehicle's state, its autopilot (arming, take-off,
landing, modes, targets, failsafes, returns), its missions, its telemetry and its UDP port."""
