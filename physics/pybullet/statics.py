"""Static obstacles as pybullet bodies: boxes, walls, vertical cylinders and meshes (OBJ or URDF)."""

from __future__ import annotations

from physics.obstacles import Cylinder, Mesh, Wall


def add_static(p, cid: int, o) -> int:
    """One static body for a scenario obstacle; returns its body id."""
    if isinstance(o, Mesh):
        orientation = p.getQuaternionFromEuler((0.0, 0.0, o.yaw))
        if o.file.lower().endswith(".urdf"):
            return p.loadURDF(o.file, o.position, orientation, useFixedBase=True, globalScaling=o.scale, physicsClientId=cid)
        shape = p.createCollisionShape(p.GEOM_MESH, fileName=o.file, meshScale=[o.scale] * 3, physicsClientId=cid)
        return p.createMultiBody(0, shape, -1, o.position, orientation, physicsClientId=cid)
    if isinstance(o, Cylinder):
        shape = p.createCollisionShape(p.GEOM_CYLINDER, radius=o.radius, height=2 * o.half_height, physicsClientId=cid)
        return p.createMultiBody(0, shape, -1, o.center, physicsClientId=cid)
    yaw = o.yaw if isinstance(o, Wall) else 0.0
    shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=o.half_extents, physicsClientId=cid)
    return p.createMultiBody(0, shape, -1, o.center, p.getQuaternionFromEuler((0.0, 0.0, yaw)), physicsClientId=cid)
