"""From a validated scenario to a finished run: assembling the simulation (`assemble.build`),
running it and writing its directory (`execute.run`), in a child process for ns-3 (`isolated`)."""
