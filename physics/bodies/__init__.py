"""The bodies both worlds move: quadrotors (airframes, cascaded control, their commands), differential-
drive and omnidirectional ground robots, URDF robots, and the batteries they drain."""
