"""The seed papers' programs: BARAKA help requests, Kilombo Kilobots, ROSBuzz's barrier (on the
swarm library, controllers.swarm), UAV flocking coverage, Simbeeotic RF gradient."""
