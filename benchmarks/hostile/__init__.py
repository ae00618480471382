"""The hostile audit: hundreds of bad inputs, misbehaving controllers, signals, damaged run
directories, sweeps and network surfaces, each run as a user would and judged by what it did
(issue 53). `python benchmarks/hostile_audit.py` runs them all."""
