"""Routing protocols written in Python, and the interface between them and the per-node stack."""
