"""The numba plumbing every compiled part of the project shares, below all of them: one on-disk
cache (`jit.cache`, chosen by `COSIM_CACHE_DIR`), the clock of compile time (`jit.clock`), calls
without numba's dispatch (`jit.calls`) and arrays without reference counting (`jit.borrow`).

It imports nothing of the project, so physics, netstack, controllers and cosim may all use it.
Importing it points numba's cache at the folder for this code, before numba loads.
"""

from jit import cache

cache.configure()
