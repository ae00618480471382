"""The timeline and what runs on it: the Simulation and the parts its helpers take (clock,
population, transmitter, delivery), the event engine's loop, timers, the per-node handles a
controller is given, the neighbour table, the recorder, seeded streams and progress reporting."""
