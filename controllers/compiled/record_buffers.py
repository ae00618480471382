"""What a compiled robot's one-robot calls need but need not own: the record buffers a
callback writes into, one set per thread (a thread's calls run one after another and each call's
records are collected before the next; core.RECORDS rows a robot would be 130 KB each, 1.3 GB for
10,000 robots).
"""

from __future__ import annotations

import threading

import numpy as np

from controllers.compiled.core import RECORDS

_LOCAL = threading.local()


def record_buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's (rows: t_ns, node, channel; values; count) for record(k, name, value)."""
    buffers = getattr(_LOCAL, "records", None)
    if buffers is None:
        buffers = _LOCAL.records = (np.zeros((RECORDS, 3), dtype=np.int64), np.zeros(RECORDS),
                                    np.zeros(1, dtype=np.int64))
    return buffers
