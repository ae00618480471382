"""Parameter sweeps: the sweep file, the local and Dask runners, the index, and `cosim sweep`."""
