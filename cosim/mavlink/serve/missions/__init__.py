"""A served vehicle's missions: the upload and download protocol, the plan it keeps, and the flight
through its items."""
