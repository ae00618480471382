"""Our side of vehicles reached over MAVLink: readiness from a cold start, arming and take-off, missions,
and the `Robot` a controller flies them through."""
