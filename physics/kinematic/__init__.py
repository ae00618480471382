"""The kinematic world: numpy point masses under velocity commands, stepped for the whole swarm at
once by compiled kernels (pair searches, Verlet lists, scenery rays and push-outs)."""
