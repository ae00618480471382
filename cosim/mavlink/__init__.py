"""MAVLink: simulated vehicles served as MAVLink endpoints, frame conversions (ENU/NED, geodetic)."""
