"""The scenery as pybullet bodies: static obstacles (boxes, walls, vertical cylinders, OBJ or URDF
meshes), movable props and the terrain."""

from __future__ import annotations

from physics.scene.obstacles import Cylinder, Mesh, Wall
from physics.scene.props import CylinderProp, ModelProp, Terrain


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
    """One movable body for a scenario prop (physics.scene.props); returns its body id."""
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


def add_scenery(p, cid: int, arena, obstacles: tuple, ground: bool, terrain: Terrain | None) -> list[int]:
    """The ground (a plane, or the terrain), walls around the arena and the static obstacles; their body ids."""
    static = []
    if terrain is not None:
        static.append(add_terrain(p, cid, terrain, arena.lower[2]))
    elif ground:
        plane = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=cid)
        static.append(p.createMultiBody(0, plane, -1, (0, 0, arena.lower[2]), physicsClientId=cid))
    return static + add_arena_walls(p, cid, arena) + [add_static(p, cid, obstacle) for obstacle in obstacles]


def add_arena_walls(p, cid: int, arena) -> list[int]:
    """Four static walls, 1 m thick, just outside the arena's x-y bounds and as high as it: the
    arena keeps robots in here as it does in the kinematic world."""
    (x0, y0, z0), (x1, y1, z1) = arena.lower, arena.upper
    zc = 0.5 * (z0 + z1)
    hz = 0.5 * (z1 - z0)
    walls = [((x0 - 0.5, 0.5 * (y0 + y1), zc), (0.5, 0.5 * (y1 - y0) + 1.0, hz)),
             ((x1 + 0.5, 0.5 * (y0 + y1), zc), (0.5, 0.5 * (y1 - y0) + 1.0, hz)),
             ((0.5 * (x0 + x1), y0 - 0.5, zc), (0.5 * (x1 - x0) + 1.0, 0.5, hz)),
             ((0.5 * (x0 + x1), y1 + 0.5, zc), (0.5 * (x1 - x0) + 1.0, 0.5, hz))]
    out = []
    for center, half in walls:
        shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=cid)
        out.append(p.createMultiBody(0, shape, -1, center, physicsClientId=cid))
    return out
