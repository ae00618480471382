"""The seed papers' programs and the examples: BARAKA help requests, Kilombo Kilobots (in Python, and
as compiled controllers and groups), kilolib's programs and their compiled twins, ROSBuzz's barrier
(on the swarm library, controllers.swarm), UAV flocking coverage, Simbeeotic RF gradient."""
