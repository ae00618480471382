"""The run's trace (positions, network events, controller records), streamed to Parquet in row groups.

Rows are buffered as numpy chunks and written every `chunk_rows` rows, so memory stays bounded and a
run that stops early keeps what was flushed. Each column is hashed as it is written; because
SHA-256 over consecutive chunks equals SHA-256 over the whole column, the digest depends only on the
trace's content, never on where chunks were cut.
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cosim.core.interruption import uninterrupted
from cosim.core.record_buffer import RecordBuffer
from cosim.core.trace_codes import ACK, DELIVER, DROP, DROP_REASONS, NET_KINDS, NOACK, SEND
from cosim.core.trace_observer import TraceObserver
from cosim.core.trace_table import TraceTable

PACKET_KINDS = ("send", "recv", "drop", "frame")
_PACKET_CODE = {k: i for i, k in enumerate(PACKET_KINDS)}

# name -> (numpy dtype, or "str" for text, or a tuple of labels for a dictionary-encoded int8 column)
SCHEMAS: dict[str, dict[str, Any]] = {
    "positions": {"t_ns": np.int64, "node": np.int32, "x": np.float64, "y": np.float64, "z": np.float64,
                  "vx": np.float64, "vy": np.float64, "vz": np.float64, "heading": np.float64, "alive": np.bool_,
                  "battery_j": np.float64},
    "network": {"t_ns": np.int64, "kind": NET_KINDS, "src": np.int32, "dst": np.int32, "tx_id": np.int64,
                "size": np.int32, "rssi_dbm": np.float64, "drop_reason": DROP_REASONS, "lqi": np.int16},
    "records": {"t_ns": np.int64, "node": np.int32, "name": "str", "value": np.float64},
    "events": {"t_ns": np.int64, "node": np.int32, "kind": "str", "detail": "str"},
    # routed scenarios: application packets (send/recv/drop) and every frame a routing protocol
    # transmits (kind `frame`, detail = its type; `data` frames carry packets, the rest are overhead)
    "packets": {"t_ns": np.int64, "node": np.int32, "kind": PACKET_KINDS, "src": np.int32, "dst": np.int32,
                "port": np.int32, "seq": np.int64, "hops": np.int16, "size": np.int32, "detail": "str"},
}


class Recorder:
    """Collects trace rows; in memory by default, streamed to Parquet after `stream_to(directory)`.
    `observers` see network events, events, packets and records as they come, kept or not."""

    def __init__(self, positions: bool = True, network: bool = True, records: bool = True, chunk_rows: int = 131_072,
                 observers: Sequence[TraceObserver] = (), interfaces: Sequence[str] = ("radio",)) -> None:
        """With several `interfaces` the network table has an `iface` column (their names)."""
        self.want_positions = positions
        self.want_network = network
        self.want_records = records
        self.observers = tuple(observers)
        self.takes_network = network or bool(self.observers)
        """Whether network events should be handed over at all (kept, or watched)."""
        self._ifaces = len(interfaces) > 1
        schemas = dict(SCHEMAS)
        if self._ifaces:
            schemas["network"] = {**SCHEMAS["network"], "iface": tuple(interfaces)}
        self._tables = {name: TraceTable(name, chunk_rows, schema) for name, schema in schemas.items()}
        self._send_rows: list[tuple[int, int, int, int, int, int]] = []
        self._rec = RecordBuffer()
        self._pkt: list[tuple] = []
        self._chunk_rows = chunk_rows

    def stream_to(self, directory: Path) -> None:
        """Write `<table>.parquet` files under directory as rows accumulate (call before the run)."""
        import pyarrow as pa
        import pyarrow.parquet

        pa.array(np.zeros(0))  # pyarrow loads itself and pandas (0.2 s) here, before the run, not at its first row group

        for name, table in self._tables.items():
            table.path = Path(directory) / f"{name}.parquet"

    # -- rows ----------------------------------------------------------------------------------
    def positions(self, t_ns: int, pos: np.ndarray, vel: np.ndarray, heading: np.ndarray, alive: np.ndarray,
                  battery_j: np.ndarray | None = None) -> None:
        n = len(pos)
        self._tables["positions"].append({
            "t_ns": t_ns, "node": np.arange(n, dtype=np.int32), "x": pos[:, 0], "y": pos[:, 1], "z": pos[:, 2],
            "vx": vel[:, 0], "vy": vel[:, 1], "vz": vel[:, 2], "heading": heading, "alive": alive,
            "battery_j": np.nan if battery_j is None else np.where(np.isinf(battery_j), np.nan, battery_j),
        }, n)

    def send(self, t_ns: int, src: int, dst: int, tx_id: int, size: int, iface: int = 0) -> None:
        for o in self.observers:
            o.sends(t_ns, (src,), (dst,), (tx_id,), (size,))
        if self.want_network:
            self._send_rows.append((t_ns, src, dst, tx_id, size, iface))

    def send_many(self, t_ns: int, src: np.ndarray, dst: np.ndarray, tx_id: np.ndarray, size: np.ndarray,
                  iface: int = 0) -> None:
        """Several sends at one instant (rows in the order given)."""
        for o in self.observers:
            o.sends(t_ns, src, dst, tx_id, size)
        if self.want_network:
            self._flush_sends()
            self._net(t_ns, SEND, src, dst, tx_id, size, iface=iface)

    def record_many(self, t_ns: int, nodes: np.ndarray, name: str, values: np.ndarray) -> None:
        """One sample per node of metric `name` at one instant (TypeError at the call for a name that
        is not a string or values that are not numbers)."""
        record_name(name)
        values = record_values(values)
        for o in self.observers:
            o.records(t_ns, nodes, name, values)
        if not self.want_records:
            return
        n = len(nodes)
        self._rec.add_rows(np.full(n, t_ns, np.int64), nodes, np.full(n, self._rec.code(name), np.int32), values)
        if self._rec.rows >= self._chunk_rows:
            self._flush_records()

    def network_rows(self, t: np.ndarray, kind: np.ndarray, src: np.ndarray, dst: np.ndarray, tx_id: np.ndarray,
                     size: np.ndarray, rssi: np.ndarray, reason: np.ndarray) -> None:
        """Network rows computed elsewhere (the fused engine), in the order given; kind and reason are
        codes of NET_KINDS and DROP_REASONS."""
        if self.want_network and len(t):
            self._flush_sends()
            self._net(t.copy(), kind.copy(), src.copy(), dst.copy(), tx_id.copy(), size, rssi, reason)

    def record_rows(self, t_ns: np.ndarray, nodes: np.ndarray, names: list[str], which: np.ndarray,
                    values: np.ndarray) -> None:
        """Records computed elsewhere (the fused engine), one per row, in the order given; row k's name
        is names[which[k]]."""
        for o in self.observers:
            for t, node, q, v in zip(t_ns.tolist(), nodes.tolist(), which.tolist(), values.tolist()):
                o.records(t, (node,), names[q], (v,))
        if not self.want_records:
            return
        for name in names:
            record_name(name)
        codes = np.array([self._rec.code(name) for name in names], np.int32)
        self._rec.add_rows(t_ns, nodes, codes[which], values)
        if self._rec.rows >= self._chunk_rows:
            self._flush_records()

    def _net(self, t, kind: int, src, dst, tx_id, size=0, rssi=np.nan, reason=0, lqi=-1, iface=0) -> None:
        """Append network rows; scalars broadcast to the row count."""
        n = len(np.atleast_1d(dst))
        cols = {"t_ns": t, "kind": kind, "src": src, "dst": dst, "tx_id": tx_id, "size": size, "rssi_dbm": rssi,
                "drop_reason": reason, "lqi": lqi}
        if self._ifaces:
            cols["iface"] = iface
        self._tables["network"].append(cols, n)

    def _flush_sends(self) -> None:
        if not self._send_rows:
            return
        with uninterrupted:  # taken and handed on whole: never twice, never lost
            a = np.array(self._send_rows, dtype=np.int64)
            self._net(a[:, 0], SEND, a[:, 1], a[:, 2], a[:, 3], a[:, 4], iface=a[:, 5])
            self._send_rows = []

    def net_events(self, ev) -> None:
        """Deliveries, drops and transmit statuses of one NetEvents batch (sends before them come first)."""
        for o in self.observers:
            o.net_events(ev)
        if not self.want_network:
            return
        self._flush_sends()
        if len(ev.dst):
            lqi = ev.lqi if ev.lqi is not None else -1
            self._net(ev.row_times(), DELIVER, ev.src, ev.dst, ev.tx_id, ev.size, ev.rssi_dbm, lqi=lqi, iface=ev.row_ifaces())
        if len(ev.drop_dst):
            self._net(ev.drop_times(), DROP, ev.drop_src, ev.drop_dst, ev.drop_tx_id, reason=ev.drop_reason.astype(np.int8) + 1,
                      iface=ev.drop_ifaces())
        for st in ev.tx_status:
            self._net(st.t_ns, ACK if st.acked else NOACK, st.src, st.dst, st.tx_id, iface=st.iface)

    def event(self, t_ns: int, node: int, kind: str, detail: str = "") -> None:
        """A discrete happening (a fault, a death); always recorded: they are rare and matter."""
        for o in self.observers:
            o.event(t_ns, node, kind, detail)
        self._tables["events"].append({"t_ns": np.array([t_ns], np.int64), "node": np.array([node], np.int32),
                                       "kind": [kind], "detail": [detail]})

    def record(self, t_ns: int, node: int, name: str, value: float) -> None:
        """One sample of metric `name` (TypeError at the call for a name that is not a string or a
        value that is not a real number: it would fail only when the trace is written)."""
        if type(name) is not str or not name:  # the full check only when not plainly right (a record per robot step)
            record_name(name)
        if type(value) is not float and not isinstance(value, numbers.Real):
            raise TypeError(f"record(name, value): value must be a real number, got {type(value).__name__} {value!r:.40}")
        for o in self.observers:
            o.records(t_ns, (node,), name, (value,))
        if not self.want_records:
            return
        self._rec.add(t_ns, node, name, float(value))
        if self._rec.rows >= self._chunk_rows:
            self._flush_records()

    def packet(self, t_ns: int, node: int, kind: str, packet, hops: int, detail: str) -> None:
        """An application packet sent, received at its destination, or dropped (always recorded)."""
        for o in self.observers:
            o.packet(t_ns, node, kind, packet.src, packet.dst, packet.port, packet.seq, hops, detail)
        self._pkt.append((t_ns, node, _PACKET_CODE[kind], packet.src, packet.dst, packet.port, packet.seq, hops,
                          len(packet.payload), detail))
        if len(self._pkt) >= self._chunk_rows:
            self._flush_packets()

    def frame(self, t_ns: int, node: int, dst: int, kind: str, size: int) -> None:
        """A frame a routing protocol transmitted (`kind`: data, or its control frame's name)."""
        for o in self.observers:
            o.packet(t_ns, node, "frame", node, dst, -1, -1, 0, kind)
        self._pkt.append((t_ns, node, 3, node, dst, -1, -1, 0, size, kind))
        if len(self._pkt) >= self._chunk_rows:
            self._flush_packets()

    def data_frame(self, t_ns: int, node: int, next_hop: int, src: int, port: int, seq: int, hops: int, size: int) -> None:
        """A data frame `node` sent to `next_hop`, with the packet it carries (source, port, sequence
        number) and its hop count after this hop: every routed packet's trail (loops show in it)."""
        for o in self.observers:
            o.packet(t_ns, node, "frame", src, next_hop, port, seq, hops, "data")
        self._pkt.append((t_ns, node, 3, src, next_hop, port, seq, hops, size, "data"))
        if len(self._pkt) >= self._chunk_rows:
            self._flush_packets()

    def _flush_packets(self) -> None:
        if not self._pkt:
            return
        with uninterrupted:
            cols = list(zip(*self._pkt))
            names = ("t_ns", "node", "kind", "src", "dst", "port", "seq", "hops", "size")
            chunk = {n: np.array(c, dtype=np.int64) for n, c in zip(names, cols)}
            chunk["detail"] = list(cols[9])
            self._tables["packets"].append(chunk)
            self._pkt = []

    def _flush_records(self) -> None:
        with uninterrupted:
            chunk = self._rec.take()
            if chunk is not None:
                self._tables["records"].append(chunk)

    # -- output --------------------------------------------------------------------------------
    def _flush_all(self) -> None:
        self._flush_sends()
        self._flush_records()
        self._flush_packets()
        for table in self._tables.values():
            table.flush()

    def finish(self) -> str:
        """Flush and close every file; returns the trace digest (equal digests: identical traces)."""
        self._flush_all()
        for table in self._tables.values():
            table.close()
        return self.digest()

    def digest(self) -> str:
        self._flush_all()
        h = hashlib.sha256()
        for name in sorted(self._tables):
            if self._tables[name].rows:
                h.update("\n".join(self._tables[name].digest_lines()).encode())
        return h.hexdigest()

    def tables(self) -> dict[str, dict[str, Any]]:
        """The trace as columns, for recorders that were not streamed (tests, in-memory runs)."""
        self._flush_all()
        return {name: t.columns() for name, t in self._tables.items() if t.rows}


def record_name(name: Any) -> None:
    """A record's name is a non-empty string (the trace's `name` column)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"record(name, value): name must be a non-empty string, got {type(name).__name__} {name!r:.40}")


def record_values(values: Any) -> np.ndarray:
    """Numbers (bools, integers, floats) as float64; TypeError for text, objects and the like."""
    a = np.asarray(values)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"record(name, values): values must be numbers, got {a.dtype} {values!r:.40}")
    return a.astype(np.float64, copy=False)
