"""World backends (kinematic, pybullet), robot handles and sensors."""
