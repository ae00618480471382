"""A validated scenario built into a ready Simulation (`simulation.build`): the world and its robots
placed clear of obstacles, the network's backends per radio, controllers, traffic and the extensions
that watch a run."""
