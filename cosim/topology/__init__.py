"""Topology analytics: the link graph sampled over a run, and what routing did on it (networkx)."""
