"""Where robots are relative to one another: the one cell index of points in the plane that the
radio, the rays among robots and the search for touching pairs all use (`spatial.grid`).

It imports nothing of the project but `jit`, so physics and netstack may both use it.
"""
