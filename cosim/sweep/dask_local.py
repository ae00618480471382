"""`cosim sweep --dask local[:N]`: a Dask scheduler, its dashboard and N worker processes on
127.0.0.1 for the length of one sweep, stopped after it."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)


def local_workers(address: str) -> int | None:
    """N of `local:N` (`local`: one worker per CPU); None for a scheduler's address."""
    if address != "local" and not address.startswith("local:"):
        return None
    text = address.partition(":")[2]
    if not text:
        return os.cpu_count() or 1
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"--dask {address!r}: expected local or local:N with N a whole number >= 1")
    return int(text)


@contextmanager
def local_cluster(workers: int, announce=print) -> Iterator[object]:
    """A distributed.Client of a LocalCluster whose scheduler, workers and dashboard all listen on
    127.0.0.1 only; `announce` hears the dashboard's address."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0") as cluster, \
            Client(cluster) as client:
        announce(f"Dask on 127.0.0.1: {workers} worker(s), dashboard {cluster.dashboard_link}")
        yield client
