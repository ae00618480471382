"""The worlds robots move in, by concern: `kinematic` (numpy point masses and their compiled steps),
`pybullet` (rigid bodies), `bodies` (the vehicles both worlds fly or drive: quadrotors, wheeled and
omnidirectional robots, airframes, batteries), `sensors` (what a robot reads of its world) and `scene`
(obstacles, props and wind). `world` is the interface every backend implements; `robot` is a
controller's handle on one simulated robot."""
