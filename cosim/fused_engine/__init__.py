"""The fused engine: when every robot runs a compiled program, the world is kinematic and the radio
is fast, many ticks run in one compiled call (see docs/kilolib.md and ../shared/ARCHITECTURE.md)."""
