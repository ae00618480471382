"""A controller whose first step compiles a fresh numba function (never cached): a run that compiles."""

from __future__ import annotations

import numba

from controllers import Controller


class CompilesOnce(Controller):
    """Compiles a new kernel in its first step, as a first run on a machine compiles the library's."""

    def setup(self) -> None:
        self._kernel = None

    def step(self) -> None:
        if self._kernel is None:
            @numba.njit(cache=False)
            def kernel(n: int) -> float:
                s = 0.0
                for i in range(n):
                    s += i ** 0.5
                return s

            self._kernel = kernel
        self.record("sum", self._kernel(100))
