"""The pybullet world: robots as rigid bodies (spheres flown by a force law, quadrotors under their
rotor thrusts, wheeled robots on motorised joints), static obstacles, one engine per world."""
