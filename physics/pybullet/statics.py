"""The scenery as pybullet bodies: static obstacles (boxes, walls, vertical cylinders, OBJ or URDF
meshes), movable props and the terrain."""

from __future__ import annotations

from physics.obstacles import Cylinder, Mesh, Wall
from physics.props import CylinderProp, ModelProp, Terrain


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


def add_prop(p, cid: int, prop) -> int:
    """One movable body for a scenario prop (physics.props); returns its body id."""
    if isinstance(prop, ModelProp):
        orientation = p.getQuaternionFromEuler((0.0, 0.0, prop.yaw))
        if prop.file.lower().endswith(".urdf"):
            body = p.loadURDF(prop.file, prop.position, orientation, useFixedBase=False, globalScaling=prop.scale,
                              physicsClientId=cid)
        else:
            shape = p.createCollisionShape(p.GEOM_MESH, fileName=prop.file, meshScale=[prop.scale] * 3, physicsClientId=cid)
            body = p.createMultiBody(prop.mass, shape, -1, prop.position, orientation, physicsClientId=cid)
    elif isinstance(prop, CylinderProp):
        shape = p.createCollisionShape(p.GEOM_CYLINDER, radius=prop.radius, height=prop.height, physicsClientId=cid)
        body = p.createMultiBody(prop.mass, shape, -1, prop.center, physicsClientId=cid)
    else:
        shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[s / 2.0 for s in prop.size], physicsClientId=cid)
        body = p.createMultiBody(prop.mass, shape, -1, prop.center, p.getQuaternionFromEuler((0.0, 0.0, prop.yaw)),
                                 physicsClientId=cid)
    p.changeDynamics(body, -1, lateralFriction=prop.friction, physicsClientId=cid)
    return body


def add_terrain(p, cid: int, terrain: Terrain, ground_z: float) -> int:
    """The ground as a heightfield (heights above ground_z) or a static OBJ mesh; returns its body id."""
    if terrain.mesh is not None:
        shape = p.createCollisionShape(p.GEOM_MESH, fileName=terrain.mesh, flags=p.GEOM_FORCE_CONCAVE_TRIMESH,
                                       physicsClientId=cid)
        body = p.createMultiBody(0, shape, -1, (0.0, 0.0, ground_z), physicsClientId=cid)
    else:
        grid = terrain.grid()  # rows along y, columns along x
        rows, cols = grid.shape
        shape = p.createCollisionShape(p.GEOM_HEIGHTFIELD, meshScale=[terrain.cell, terrain.cell, 1.0],
                                       heightfieldData=grid.ravel().tolist(), numHeightfieldRows=cols,
                                       numHeightfieldColumns=rows, physicsClientId=cid)
        # pybullet centres a heightfield on its body, half way between its lowest and highest point
        mid = ground_z + 0.5 * (float(grid.min()) + float(grid.max()))
        body = p.createMultiBody(0, shape, -1, (terrain.center[0], terrain.center[1], mid), physicsClientId=cid)
    p.changeDynamics(body, -1, lateralFriction=terrain.friction, physicsClientId=cid)
    return body
