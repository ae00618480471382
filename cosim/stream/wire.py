"""The stream's wire format, version 1: language-neutral, no pickle.

Each publication is one ZeroMQ multipart message:

    frame 0   topic, ASCII: b"cosim.v1.state" (a publication) or b"cosim.v1.end" (the run is over)
    frame 1   header, UTF-8 JSON: {"version": 1, "seq": k, "t_ns": int, "n": robots,
              "arrays": [{"name": str, "dtype": numpy dtype string (little-endian), "shape": [..]}, ...],
              "events": [[t_ns, node, kind, detail], ...], "dropped": publications dropped so far}
    frame 2+  the arrays' raw bytes, C order, one frame each, in the order `arrays` lists them

`seq` counts publications from 0, dropped ones included, so a subscriber sees a gap where one was
dropped. Arrays of a state publication (K: network rows since the previous publication):

    pos (n, 3) <f8 metres, ENU     vel (n, 3) <f8 m/s     heading (n,) <f8 rad     alive (n,) |u1
    send_t_ns, send_src, send_dst (K,) <i8: frames handed to the network (dst -1: broadcast)
    rx_t_ns, rx_src, rx_dst (K,) <i8: deliveries     drop_src, drop_dst (K,) <i8: losses
"""

from __future__ import annotations

import json

import numpy as np

VERSION = 1
STATE_TOPIC = b"cosim.v1.state"
END_TOPIC = b"cosim.v1.end"


def encode(topic: bytes, seq: int, t_ns: int, n: int, arrays: dict[str, np.ndarray], events: list,
           dropped: int) -> list[bytes]:
    """One publication as multipart frames."""
    fixed = {name: np.ascontiguousarray(a, dtype=np.dtype(a.dtype).newbyteorder("<")) for name, a in arrays.items()}
    header = {"version": VERSION, "seq": seq, "t_ns": int(t_ns), "n": int(n),
              "arrays": [{"name": name, "dtype": a.dtype.str, "shape": list(a.shape)} for name, a in fixed.items()],
              "events": [[int(t), int(node), kind, detail] for t, node, kind, detail in events], "dropped": int(dropped)}
    return [topic, json.dumps(header).encode()] + [a.tobytes() for a in fixed.values()]


def decode(frames: list[bytes]) -> tuple[str, dict, dict[str, np.ndarray]]:
    """Topic, header and arrays of one publication; raises ValueError on another version."""
    topic = frames[0].decode("ascii")
    header = json.loads(frames[1])
    if header.get("version") != VERSION:
        raise ValueError(f"stream version {header.get('version')!r}; this reader knows version {VERSION}")
    arrays = {spec["name"]: np.frombuffer(buf, dtype=np.dtype(spec["dtype"])).reshape(spec["shape"])
              for spec, buf in zip(header["arrays"], frames[2:])}
    return topic, header, arrays
