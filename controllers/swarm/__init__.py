"""Swarm programming primitives in the manner of Buzz (paper 004): neighbour operations, topic
messages, swarm groups, virtual stigmergy and barriers, over a robot's radio within a frame
budget. See docs/swarm.md."""

from controllers.swarm import codec
from controllers.swarm.barrier import Barrier
from controllers.swarm.neighbors import Neighbors, Peer
from controllers.swarm.stigmergy import ConflictRule, Entry, VirtualStigmergy, higher_writer_wins
from controllers.swarm.swarm import Swarm, SwarmGroup

__all__ = [
           "Barrier",
           "ConflictRule",
           "Entry",
           "Neighbors",
           "Peer",
           "Swarm",
           "SwarmGroup",
           "VirtualStigmergy",
           "codec",
           "higher_writer_wins",
]
