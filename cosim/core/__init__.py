"""The coordinator's core: the timeline, the coordinator loop, timers, the per-node handles a
controller is given, the neighbour table, the recorder, seeded streams and progress reporting."""
