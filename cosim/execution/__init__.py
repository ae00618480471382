"""A scenario run end to end (`execute.run`): built, simulated and written to its run directory, in
a child process when ns-3 is in it (`isolated`), with signals, a watchdog, compile notices and what
controllers print kept in the run's log."""
