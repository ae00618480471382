"""Seeing a run: a Rerun recording of the swarm (replay and live) and the viewers that show it."""
