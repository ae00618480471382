"""When the timeline reports, whichever loop runs it (the event loop or cosim.fused_engine): a trace sample
every sample period from 0 to the end inclusive, when anything is sampled (cosim.core.sampler), and
a progress report at every hundredth of the run, before its end. Both loops stop at `next_ns` and
call `run`; each such stop is one event of the run's count, in either loop."""

from __future__ import annotations

import time

from cosim.core.interruption import pending
from cosim.core.plans import ProgressFn
from cosim.core.sampler import Sampler

NEVER = -1
"""`next_ns` when nothing is left to report."""


class Reports:
    """The run's sample and progress instants, and what happens at them."""

    def __init__(self, sampler: Sampler, duration_ns: int, sample_every_ns: int, progress_every_ns: int,
                 sampling: bool) -> None:
        self.sampler = sampler
        self.duration_ns = duration_ns
        self.sample_every_ns = sample_every_ns
        self.progress_every_ns = progress_every_ns
        self.next_sample = 0 if sampling else NEVER
        self.next_progress = 0
        self.progress: ProgressFn | None = None
        self.wall0 = 0.0

    def start(self, progress: ProgressFn | None, wall0: float) -> None:
        """From the timeline's start: progress goes to `progress` (None: nowhere), wall time counted
        from perf_counter() `wall0`."""
        self.progress = progress
        self.wall0 = wall0

    def next_ns(self) -> int:
        """The next instant something is reported, or NEVER."""
        if self.next_sample == NEVER or self.next_progress == NEVER:
            return max(self.next_sample, self.next_progress)
        return min(self.next_sample, self.next_progress)

    def run(self, t_ns: int) -> int:
        """What is due at t_ns (the sample first, then the progress report); returns `next_ns()`.
        A Ctrl-C or SIGTERM that was swallowed where it landed is raised again here."""
        lost = pending()
        if lost is not None:
            raise lost
        if t_ns == self.next_sample:
            self.sampler.sample(t_ns)
            nxt = t_ns + self.sample_every_ns
            self.next_sample = nxt if nxt <= self.duration_ns else NEVER
        if t_ns == self.next_progress:
            if self.progress is not None:
                self.progress(t_ns, self.duration_ns, time.perf_counter() - self.wall0)
            nxt = t_ns + self.progress_every_ns
            self.next_progress = nxt if nxt < self.duration_ns else NEVER
        return self.next_ns()

    def finish(self, t_ns: int) -> None:
        """The last progress report, where the timeline ended."""
        if self.progress is not None:
            self.progress(t_ns, self.duration_ns, time.perf_counter() - self.wall0)
