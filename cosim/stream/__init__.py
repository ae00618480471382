"""A live ZeroMQ stream of the run (robot states and network events) for other programs."""
