"""The world's obstacles as the solids the fast radio's line of sight can cross (plain arrays)."""

from __future__ import annotations

import numpy as np

from netstack.fast.shadowing import Solids
from physics.scene.obstacles import Box, Cylinder, Wall


def solids_of(obstacles) -> Solids:
    """Boxes, walls and cylinders of world.obstacles (meshes are refused by the scenario checks)."""
    boxes = [(o.center, o.half_extents, 0.0) for o in obstacles if isinstance(o, Box)]
    boxes += [(o.box.center, o.box.half_extents, o.box.yaw) for o in obstacles if isinstance(o, Wall)]
    cyls = [(o.center, o.radius, o.half_height) for o in obstacles if isinstance(o, Cylinder)]
    return Solids(np.array([b[0] for b in boxes], dtype=float).reshape(-1, 3),
                  np.array([b[1] for b in boxes], dtype=float).reshape(-1, 3),
                  np.array([b[2] for b in boxes], dtype=float),
                  np.array([c[0] for c in cyls], dtype=float).reshape(-1, 3),
                  np.array([c[1] for c in cyls], dtype=float),
                  np.array([c[2] for c in cyls], dtype=float))
