"""`GroupController`: one object programs a whole group of robots, called once per control tick with
the group's state as arrays, so a thousand robots cost a few array operations instead of a thousand
Python calls.

The group it is handed (`Group`) gives poses and velocities as (n, 3) arrays, an `Inbox` of
everything the group's robots received since the last tick (receiver, sender, exact receive time,
RSSI, SNR, payload), and takes commands and sends as arrays. Timers, `rng`, `record`, `Params`
and scenario loading work as for `Controller`; robots are indexed 0..n-1 within the group
(`group.ids` maps them to node ids).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from controllers.api.base import ControllerBase
from controllers.api.services import Services


@dataclass(frozen=True)
class Inbox:
    """Messages received by a group's robots since its last tick, in receive order.

    `dst` is the receiver's index in the group, `src` the sender's node id, `t` the exact receive
    time (s). `payloads[k]` is row k's bytes; `records(dtype)` reads fixed-size payloads as one
    structured array."""

    dst: np.ndarray
    src: np.ndarray
    t: np.ndarray
    rssi_dbm: np.ndarray
    snr_db: np.ndarray
    payloads: Sequence[bytes]
    iface: np.ndarray | None = None
    """The radio each message came in on, as an index into `group.interfaces` (None: all on the first)."""

    def __len__(self) -> int:
        return len(self.dst)

    def records(self, dtype: np.dtype | str) -> np.ndarray:
        """Every payload as one record of `dtype` (all payloads must be exactly that size)."""
        dt = np.dtype(dtype)
        if any(len(p) != dt.itemsize for p in self.payloads):
            raise ValueError(f"records({dt}): every payload must be {dt.itemsize} bytes")
        return np.frombuffer(b"".join(self.payloads), dtype=dt)


@runtime_checkable
class Group(Protocol):
    """The robots of one group, as arrays indexed 0..n-1 (node ids in `ids`)."""

    ids: np.ndarray
    n: int
    interfaces: tuple[str, ...]
    """The scenario's radios by name (the first is `network.radio`'s)."""
    sensors: Sequence[Mapping[str, Any]]
    """Each robot's sensors by name, as `robot.sensors` (for their options: ray angles, rates)."""

    # -- state (the last physics tick's; read-only views of the world's arrays: writing raises) -----
    def positions(self) -> np.ndarray:
        """Where the robots are: a method, (n, 3) metres in the arena frame, a read-only view."""
    def velocities(self) -> np.ndarray:
        """How they move: a method, (n, 3) m/s in the arena frame, a read-only view."""
    def headings(self) -> np.ndarray:
        """Where they face: a method, (n,) radians counter-clockwise from the arena's +x, read-only."""
    def alive(self) -> np.ndarray:
        """Which still run: a method, (n,) bool; dead robots ignore commands and send nothing."""
    @property
    def moves_sideways(self) -> bool:
        """Whether set_velocity's vy moves the group's bodies (False on a left and a right wheel)."""
    def read(self, sensor: str, idx: np.ndarray | None = None) -> np.ndarray:
        """Each robot's reading of `sensor` (compass, range, gps, ...), stacked."""
    def inbox(self) -> Inbox:
        """What arrived since the last call (each message is handed over once)."""
    def range_to(self, idx: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """True distance (m) from robots `idx` of the group to nodes `nodes` (pairwise)."""
    def bearing_to(self, idx: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """True bearing (rad, robot frame, counter-clockwise) from robots `idx` to nodes `nodes`."""
    def all_positions(self) -> np.ndarray:
        """Every node's position (n_nodes, 3) by node id, what range_to and bearing_to measure from."""
    def all_headings(self) -> np.ndarray:
        """Every node's heading (rad) by node id."""

    # -- commands (take effect at the next physics tick) ---------------------------------------
    def set_velocity(self, vx: Any, vy: Any = 0.0, vz: Any = 0.0, idx: np.ndarray | None = None) -> None:
        """Robot.set_velocity for many robots at once.

        Args:
            vx: forward speeds (m/s, body frame): one number for all, or one per robot of `idx`.
            vy: leftward speeds, likewise.
            vz: upward speeds, likewise.
            idx: the robots (indices 0..n-1); None: all of them.
        """
    def set_heading(self, heading: Any, idx: np.ndarray | None = None) -> None:
        """Robot.set_heading for robots `idx` (None: all): one heading (rad) for all, or one each."""
    def turn(self, angle: Any, idx: np.ndarray | None = None) -> None:
        """Robot.turn for robots `idx` (None: all): one angle (rad, counter-clockwise) for all, or one each."""
    def drive(self, v: Any, w: Any, idx: np.ndarray | None = None) -> None:
        """Differential-drive robots: forward speed (m/s) and turn rate (rad/s)."""
    def fly(self, mode: str, a: Any, b: Any, c: Any, d: Any = None, idx: np.ndarray | None = None) -> None:
        """Quadrotors: a setpoint per robot in one of Robot.fly's modes."""

    # -- radio ---------------------------------------------------------------------------------
    def broadcast(self, idx: np.ndarray, payloads: bytes | Sequence[bytes] | np.ndarray,
                  interface: str | None = None) -> np.ndarray:
        """Robots `idx` each broadcast one frame now on `interface` (None: the first radio): the same
        bytes for all, one bytes object each, or a (len(idx), size) uint8 array. Returns the
        transmission ids (-1 for dead robots)."""
    def send(self, idx: np.ndarray, dst: np.ndarray, payloads: bytes | Sequence[bytes] | np.ndarray,
             interface: str | None = None) -> np.ndarray:
        """Robots `idx` each send one unicast frame now, to node ids `dst` (one per robot).

        Args:
            idx: the senders (indices 0..n-1).
            dst: the receivers' node ids, one per sender.
            payloads: the same bytes for all, one bytes object each, or a (len(idx), size) uint8 array.
            interface: the radio (None: the first).

        Returns:
            The transmission ids, -1 for dead robots (what `Controller.on_outcome` reports on).
        """

    # -- randomness and metrics ----------------------------------------------------------------
    def robot_rng(self, i: int) -> np.random.Generator:
        """The stream a per-robot `Controller` on robot i would get as its `rng` (for ports that must
        draw what the per-robot version draws)."""
    def record(self, name: str, values: Any, idx: np.ndarray | None = None) -> None:
        """One metric sample per robot (`values` an array over `idx`, default all)."""


class GroupController(ControllerBase):
    """Base class for array-first programs; override `setup` and `step` (and read `group.inbox()`).
    Ticks start at the scenario's `phase` (default 0): a group acts in one step, not at random phases.
    `setup` is called after every per-robot controller's; `record` samples are the group's (node -1),
    per-robot samples go through `group.record`."""

    def __init__(self, params: Any = None) -> None:
        super().__init__(params)
        self._group: Group | None = None

    def bind(self, group: Group, rng: np.random.Generator, services: Services) -> None:
        """Called by the coordinator before `setup`."""
        self._group = group
        self._rng = rng
        self._services = services

    @property
    def group(self) -> Group:
        """The group's robots, as arrays."""
        group = self._group
        if group is None:
            raise self._unbound("the group")
        return group
