"""The seed papers' programs: BARAKA help requests, Kilombo Kilobots, ROSBuzz barrier and stigmergy,
UAV flocking coverage, Simbeeotic RF gradient."""
