"""Draw frames into a Rerun recording: the one place that knows entity paths and archetypes.

Entity layout (what a viewer's tree shows): `world/arena`, `world/obstacles`, `world/robots/<group>`
(points, coloured by group, grey when dead), `world/heading/<group>`, `world/attitude/<group>`
(quadrotors' body z axis), `world/trails/<group>`, `world/links`, `world/packets`, `world/routes`,
`world/events` (markers), `events` (a text log) and `metrics/<name>` (time series). The timeline is
`sim_time`, in simulated nanoseconds.
"""

from __future__ import annotations

import logging
import math
import zlib
from pathlib import Path

import numpy as np
import rerun as rr
import rerun.blueprint as rrb

from cosim.view.batches import TIMELINE, ColumnBatches, segments
from cosim.view.frame import Frame, tilt_axes
from cosim.view.scene import PALETTE, Scene, Shape

log = logging.getLogger(__name__)
MESH_SUFFIXES = (".glb", ".gltf", ".obj", ".stl")
KIND_COLOURS = {"data": (255, 140, 0)}
LINK_COLOUR = (0, 200, 220, 90)
def blueprint(group_names: tuple[str, ...] = (), trail_ns: int = 0) -> rrb.Blueprint:
    """The swarm in 3D beside the metrics' time plots and the event log. Trails are each frame's
    positions, shown over the last `trail_ns` by the viewer (a visible time range on those entities
    alone), so a trail costs one small batch per frame however long it is."""
    window = rrb.VisibleTimeRanges(rrb.VisibleTimeRange(TIMELINE, start=rrb.TimeRangeBoundary.cursor_relative(nanos=-trail_ns),
                                                        end=rrb.TimeRangeBoundary.cursor_relative()))
    trails = {f"/world/trails/{name}": window for name in group_names} if trail_ns > 0 else {}
    return rrb.Blueprint(rrb.Horizontal(
        rrb.Spatial3DView(origin="/world", name="swarm", overrides=trails),
        rrb.Vertical(rrb.TimeSeriesView(origin="/metrics", name="metrics"), rrb.TextLogView(origin="/events", name="events")),
        column_shares=[3, 1]))


def kind_colour(kind: str) -> tuple[int, int, int]:
    """A fixed colour per packet kind (data frames orange; control kinds by a hash of their name)."""
    if kind in KIND_COLOURS:
        return KIND_COLOURS[kind]
    return tuple(int(c) for c in PALETTE[zlib.crc32(kind.encode()) % len(PALETTE)])


def warm_up() -> None:
    """Build each archetype once: Rerun's first conversion of a kind costs 0.1-0.2 s, paid here,
    before the run, rather than inside it."""
    one = np.zeros((1, 3), dtype=np.float32)
    rr.Points3D(one, radii=[0.1], colors=[(1, 2, 3)], labels=["x"])
    rr.Arrows3D(origins=one, vectors=one, colors=[(1, 2, 3)], radii=rr.Radius.ui_points(1.0))
    rr.LineStrips3D(segments(np.zeros((1, 2, 3))), colors=[(1, 2, 3, 4)], radii=rr.Radius.ui_points(1.0))
    rr.LineStrips3D([one], colors=[(1, 2, 3)], labels=["x"])
    rr.Scalars.columns(scalars=np.zeros(1))
    rr.TextLog("x", level="WARN")


class Painter:
    """Logs a scene once and then frames, in time order, to `rec`, drawing only `layers`."""

    def __init__(self, rec: rr.RecordingStream, scene: Scene, layers: tuple[str, ...], trail_ns: int = 0,
                 batch: int = 20) -> None:
        self.rec = rec
        self.scene = scene
        self.layers = frozenset(layers)
        self._groups = [np.flatnonzero(scene.group_of == k) for k in range(len(scene.group_names))]
        self.trail_ns = trail_ns if "trails" in layers else 0
        self._batches = ColumnBatches(rec)
        self._radii = scene.radius.astype(np.float32)
        self._batch = batch
        self._prev: Frame | None = None
        self._drawn: set[str] = set()  # entities whose last batch was not empty
        warm_up()
        self.frames = 0

    def paint_scene(self, base_dir: Path | None = None) -> None:
        """The layout, the arena and the static shapes (props at their start pose), logged as static."""
        rec = self.rec
        s = self.scene
        rec.send_blueprint(blueprint(s.group_names, self.trail_ns))
        lo = np.array(s.arena_lower)
        hi = np.array(s.arena_upper)
        rec.log("world/arena", rr.Boxes3D(centers=[(lo + hi) / 2], half_sizes=[(hi - lo) / 2], colors=[(120, 120, 120)],
                                          fill_mode="MajorWireframe"), static=True)
        rec.log("world/links", rr.LineStrips3D.from_fields(colors=[LINK_COLOUR], radii=rr.Radius.ui_points(0.75)), static=True)
        for name in s.group_names:
            rec.log(f"world/trails/{name}", rr.Points3D.from_fields(radii=rr.Radius.ui_points(1.5)), static=True)
            rec.log(f"world/attitude/{name}", rr.Arrows3D.from_fields(colors=[(250, 250, 250)]), static=True)
        boxes = [sh for sh in s.shapes if sh.kind == "box"]
        if boxes:
            rec.log("world/obstacles/boxes", rr.Boxes3D(
                centers=[b.center for b in boxes], half_sizes=[b.half_sizes for b in boxes],
                quaternions=[rr.Quaternion(xyzw=[0, 0, math.sin(b.yaw / 2), math.cos(b.yaw / 2)]) for b in boxes],
                colors=[(160, 160, 170)], fill_mode="Solid"), static=True)
        cyl = [sh for sh in s.shapes if sh.kind == "cylinder"]
        if cyl:
            rec.log("world/obstacles/cylinders", rr.Cylinders3D(
                centers=[c.center for c in cyl], radii=[c.radius for c in cyl], lengths=[c.height for c in cyl],
                colors=[(160, 160, 170)], fill_mode="Solid"), static=True)
        for k, mesh in enumerate(sh for sh in s.shapes if sh.kind == "mesh"):
            self._paint_mesh(k, mesh, base_dir)

    def _paint_mesh(self, k: int, mesh: Shape, base_dir: Path | None) -> None:
        path = Path(mesh.file) if base_dir is None else base_dir / mesh.file
        if path.suffix.lower() not in MESH_SUFFIXES or not path.is_file():
            log.warning("view: mesh %s not drawn (the viewer reads %s files that exist)", path, ", ".join(MESH_SUFFIXES))
            return
        entity = f"world/obstacles/mesh{k}"
        self.rec.log(entity, rr.Transform3D(translation=mesh.center, scale=mesh.scale,
                                            rotation=rr.RotationAxisAngle(axis=(0, 0, 1), radians=mesh.yaw)), static=True)
        self.rec.log(entity, rr.Asset3D(path=path), static=True)

    def paint(self, f: Frame) -> None:
        """Everything of one frame, at its time."""
        self.rec.set_time(TIMELINE, duration=np.timedelta64(int(f.t_ns), "ns"))
        on = self.layers
        if "robots" in on:
            self._robots(f)
        if self.trail_ns:
            self._trails(f)
        if "links" in on:
            self._batches.add("world/links", rr.LineStrips3D, f.t_ns, strips=f.pos[f.links].astype(np.float32))
        if "packets" in on and self._changes("world/packets", len(f.packets)):
            colours = [kind_colour(k) for k in f.packet_kinds] or None
            self._arrows("world/packets", f.pos, f.packets, colours)
        if "routes" in on and self._changes("world/routes", len(f.routes)):
            self._routes(f)
        if "events" in on and self._changes("world/events", len(f.events)):
            self._events(f)
        if "metrics" in on:
            for name, value in f.scalars.items():
                self._batches.add(f"metrics/{name}", rr.Scalars, f.t_ns, scalars=np.array([value], dtype=np.float64))
        self._prev = f
        self.frames += 1
        if self.frames % self._batch == 0:
            self.flush()

    def _changes(self, entity: str, count: int) -> bool:
        """Whether a batch of `count` items must be logged: anything, or an empty one that clears the last."""
        if count:
            self._drawn.add(entity)
            return True
        if entity in self._drawn:
            self._drawn.discard(entity)
            return True
        return False

    def flush(self) -> None:
        """Send the queued frames (the viewer sees a live run up to `batch` frames late)."""
        self._batches.flush()

    def _robots(self, f: Frame) -> None:
        s = self.scene
        colours = s.colours(f.alive)
        ahead = np.stack([np.cos(f.heading), np.sin(f.heading), np.zeros_like(f.heading)], axis=1) * (3 * s.radius)[:, None]
        up = None
        if s.quad.any() and self._prev is not None:
            up = tilt_axes(f.vel, self._prev.vel, (f.t_ns - self._prev.t_ns) * 1e-9) * (4 * s.radius)[:, None]
        add = self._batches.add
        t = f.t_ns
        for name, rows in zip(s.group_names, self._groups):
            pos = f.pos[rows].astype(np.float32)
            add(f"world/robots/{name}", rr.Points3D, t, positions=pos, radii=self._radii[rows], colors=colours[rows])
            add(f"world/heading/{name}", rr.Arrows3D, t, origins=pos, vectors=ahead[rows].astype(np.float32),
                colors=colours[rows])
            quads = rows[s.quad[rows]]
            if up is not None and len(quads):
                add(f"world/attitude/{name}", rr.Arrows3D, t, origins=f.pos[quads].astype(np.float32),
                    vectors=up[quads].astype(np.float32))

    def _trails(self, f: Frame) -> None:
        """This frame's positions as small dots; the viewer shows the last trail_ns of them (see blueprint)."""
        colours = self.scene.colours(f.alive)
        for name, rows in zip(self.scene.group_names, self._groups):
            self._batches.add(f"world/trails/{name}", rr.Points3D, f.t_ns, positions=f.pos[rows].astype(np.float32),
                              colors=colours[rows])

    def _arrows(self, entity: str, pos: np.ndarray, pairs: np.ndarray, colours) -> None:
        a = pos[pairs[:, 0]].astype(np.float32)
        b = pos[pairs[:, 1]].astype(np.float32)
        self.rec.log(entity, rr.Arrows3D(origins=a, vectors=b - a, colors=colours, radii=rr.Radius.ui_points(1.5)))

    def _routes(self, f: Frame) -> None:
        strips = [f.pos[list(path)] for path in f.routes]
        colours = [tuple(int(c) for c in PALETTE[(src * 7 + dst * 3 + port) % len(PALETTE)]) for src, dst, port in f.route_flows]
        labels = [f"{src}->{dst}" for src, dst, _ in f.route_flows]
        self.rec.log("world/routes", rr.LineStrips3D(strips, colors=colours or None, labels=labels or None,
                                                     radii=rr.Radius.ui_points(3.0)))

    def _events(self, f: Frame) -> None:
        """Each event in the text log at its own time, and as a labelled marker at its robot for this
        frame (robots that died stay grey)."""
        for t_ns, node, kind, detail in f.events:
            self.rec.set_time(TIMELINE, duration=np.timedelta64(int(t_ns), "ns"))
            self.rec.log("events", rr.TextLog(f"node {node}: {kind}" + (f" ({detail})" if detail else ""), level="WARN"))
        self.rec.set_time(TIMELINE, duration=np.timedelta64(int(f.t_ns), "ns"))
        here = [(node, kind) for _, node, kind, _ in f.events if 0 <= node < len(f.pos)]
        self.rec.log("world/events", rr.Points3D(f.pos[[n for n, _ in here]].reshape(-1, 3), labels=[k for _, k in here],
                                                 colors=[(255, 40, 40)], radii=rr.Radius.ui_points(8.0)))
