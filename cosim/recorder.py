"""Columnar trace buffers (positions, network events, controller records) written as Parquet."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

NET_KINDS = ("send", "deliver", "drop", "ack", "noack")
SEND, DELIVER, DROP, ACK, NOACK = range(5)
DROP_REASONS = ("", "loss", "out_of_range", "dead")


class Recorder:
    """Appends trace rows in memory as numpy chunks; `write()` turns them into Parquet files."""

    def __init__(self, positions: bool = True, network: bool = True, records: bool = True) -> None:
        self.want_positions = positions
        self.want_network = network
        self.want_records = records
        self._pos: list[tuple[np.ndarray, ...]] = []
        self._net: list[tuple[np.ndarray, ...]] = []
        self._send_rows: list[tuple[int, int, int, int, int]] = []
        self._rec_t: list[int] = []
        self._rec_node: list[int] = []
        self._rec_name: list[str] = []
        self._rec_value: list[float] = []

    def positions(self, t_ns: int, pos: np.ndarray, vel: np.ndarray, heading: np.ndarray, alive: np.ndarray) -> None:
        n = len(pos)
        t = np.full(n, t_ns, np.int64)
        self._pos.append((t, np.arange(n, dtype=np.int32), pos.copy(), vel.copy(), heading.copy(), alive.copy()))

    def send(self, t_ns: int, src: int, dst: int, tx_id: int, size: int) -> None:
        self._send_rows.append((t_ns, src, dst, tx_id, size))

    def _chunk(self, t, kind: int, src, dst, tx_id, size=0, rssi=np.nan, reason=0) -> None:
        """Append rows (t, kind, src, dst, tx_id, size, rssi, reason); scalars broadcast to the row count."""
        n = len(np.atleast_1d(dst))
        cols = (t, kind, src, dst, tx_id, size, rssi, reason)
        dtypes = (np.int64, np.int8, np.int64, np.int64, np.int64, np.int64, np.float64, np.int8)
        self._net.append(tuple(np.broadcast_to(np.asarray(c, dtype=d), (n,)) for c, d in zip(cols, dtypes)))

    def _flush_sends(self) -> None:
        if not self._send_rows:
            return
        a = np.array(self._send_rows, dtype=np.int64)
        self._chunk(a[:, 0], SEND, a[:, 1], a[:, 2], a[:, 3], a[:, 4])
        self._send_rows = []

    def net_events(self, ev) -> None:
        """Deliveries, drops and transmit statuses of one NetEvents batch."""
        self._flush_sends()
        t = ev.t_ns
        if len(ev.dst):
            self._chunk(t, DELIVER, ev.src, ev.dst, ev.tx_id, ev.size, ev.rssi_dbm)
        if len(ev.drop_dst):
            self._chunk(t, DROP, ev.drop_src, ev.drop_dst, ev.drop_tx_id, reason=ev.drop_reason.astype(np.int8) + 1)
        for st in ev.tx_status:
            self._chunk(t, ACK if st.acked else NOACK, st.src, st.dst, st.tx_id)

    def record(self, t_ns: int, node: int, name: str, value: float) -> None:
        self._rec_t.append(t_ns)
        self._rec_node.append(node)
        self._rec_name.append(name)
        self._rec_value.append(float(value))

    # -- output ------------------------------------------------------------------------------
    def tables(self) -> dict[str, dict[str, np.ndarray | list]]:
        """The trace as columns: {'positions': {...}, 'network': {...}, 'records': {...}}."""
        self._flush_sends()
        out: dict[str, dict] = {}
        if self._pos:
            cols = [np.concatenate([c[k] for c in self._pos]) for k in range(6)]
            out["positions"] = {
                "t_ns": cols[0], "node": cols[1],
                "x": cols[2][:, 0], "y": cols[2][:, 1], "z": cols[2][:, 2],
                "vx": cols[3][:, 0], "vy": cols[3][:, 1], "vz": cols[3][:, 2],
                "heading": cols[4], "alive": cols[5],
            }
        if self._net:
            cols = [np.concatenate([np.asarray(c[k]) for c in self._net]) for k in range(8)]
            order = np.argsort(cols[0], kind="stable")
            out["network"] = {
                "t_ns": cols[0][order], "kind": cols[1][order].astype(np.int8),
                "src": cols[2][order].astype(np.int32), "dst": cols[3][order].astype(np.int32),
                "tx_id": cols[4][order].astype(np.int64), "size": cols[5][order].astype(np.int32),
                "rssi_dbm": cols[6][order].astype(np.float64), "drop_reason": cols[7][order].astype(np.int8),
            }
        if self._rec_t:
            out["records"] = {
                "t_ns": np.array(self._rec_t, np.int64), "node": np.array(self._rec_node, np.int32),
                "name": list(self._rec_name), "value": np.array(self._rec_value, np.float64),
            }
        return out

    @staticmethod
    def digest(tables: dict[str, dict]) -> str:
        """SHA-256 over every column's bytes in a fixed order: equal digests mean identical traces."""
        h = hashlib.sha256()
        for tname in sorted(tables):
            for cname, col in tables[tname].items():
                h.update(f"{tname}.{cname}".encode())
                if isinstance(col, list):
                    h.update("\x00".join(col).encode())
                else:
                    h.update(np.ascontiguousarray(col).tobytes())
        return h.hexdigest()

    @staticmethod
    def write(tables: dict[str, dict], directory: Path) -> list[Path]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for tname, cols in tables.items():
            arrays = {}
            for cname, col in cols.items():
                if tname == "network" and cname == "kind":
                    arrays[cname] = pa.DictionaryArray.from_arrays(pa.array(col, pa.int8()), pa.array(NET_KINDS))
                elif tname == "network" and cname == "drop_reason":
                    arrays[cname] = pa.DictionaryArray.from_arrays(pa.array(col, pa.int8()), pa.array(DROP_REASONS))
                else:
                    arrays[cname] = pa.array(col)
            path = directory / f"{tname}.parquet"
            pq.write_table(pa.table(arrays), path)
            written.append(path)
        return written
