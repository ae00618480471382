"""AntHocNet: hybrid ant-colony routing for mobile ad hoc networks.

After G. Di Caro, F. Ducatelle and L. M. Gambardella, "AntHocNet: an ant-based hybrid routing
algorithm for mobile ad hoc networks", PPSN VIII (2004), and "AntHocNet: an adaptive
nature-inspired algorithm for routing in mobile ad hoc networks", European Transactions on
Telecommunications 16(5), 2005. What each node does:

- **Reactive path setup.** A source with data for a destination it has no pheromone for buffers the
  data and broadcasts a reactive forward ant. A node with pheromone for the destination unicasts
  the ant to a next hop drawn with probability proportional to pheromone**beta_ants; a node
  without broadcasts it. Copies of one ant generation reach a node over several paths: a copy is
  forwarded only if both its hop count and its travel time are within the acceptance factor a1 of
  the best copy seen (best / this >= a1). The destination answers every accepted copy with a
  backward ant that retraces the path.
- **Backward ants and pheromone.** Going back, each node i adds its own estimate of the time to
  send one packet to the next hop, (Q_mac + 1) * T_mac, where T_mac is the running average
  (factor alpha) of the time its MAC takes per unicast frame and Q_mac the frames it has queued.
  With T the time estimate to the destination and h the hop count, the path's value is
  tau = ((T + h * T_hop) / 2)^-1, and the pheromone of the hop the ant came from becomes
  gamma * old + (1 - gamma) * tau.
- **Data** is forwarded stochastically, with probability proportional to pheromone**beta_data
  (more greedy than the ants), never to a node it has visited: each data frame carries its path
  (ours; without it a node whose only pheromone pointed back bounced packets until max_hops). A
  node left with no unvisited next hop holds the packet and repairs. A second copy of a packet
  (sent again after a lost ACK) is dropped by every node that has handled it.
- **Proactive maintenance.** While a session runs, its source sends one proactive forward ant per
  `proactive_every` data packets. It travels like a reactive ant with pheromone, but at each node
  it is broadcast with probability `proactive_broadcast_p` (at most `proactive_max_broadcasts`
  times), to explore; copies of one proactive generation meet the same acceptance test.
- **Hello messages** every `hello_interval`; a neighbour not heard for `allowed_hello_loss`
  intervals is lost, as is one that does not acknowledge a unicast frame.
- **Link failure notification.** A node that loses a neighbour drops its pheromone entries and
  broadcasts, for each destination (other than that neighbour) whose best hop that was, its new
  best time estimate (or that it has no route left); neighbours update and propagate when their
  own best changes.
- **Local repair.** A node that cannot forward a data packet (its link broke and no other hop
  exists) buffers it and broadcasts a repair ant (at most `repair_max_broadcasts` broadcasts). It
  waits at most `repair_wait_factor` times the lost path's estimated delay for the backward repair
  ant; then it drops the packets and notifies its neighbours.

Sources of the defaults: the PPSN paper's section 3 (alpha, gamma, beta, hello interval and loss,
proactive and repair broadcast limits, repair factor) and Ducatelle's 2007 thesis (T_hop, a1).
The setup retry timing, the proactive rate and broadcast probability, the broadcast jitter, the
data path record and the buffer and memory sizes are this implementation's own (docs/routing.md
gives each source and says why).
"""

from netstack.routing.anthocnet.params import AntHocNetParams
from netstack.routing.anthocnet.protocol import AntHocNet

__all__ = ["AntHocNet", "AntHocNetParams"]
