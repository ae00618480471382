"""General controllers: random walks, waypoints, relays, station keepers, formation and traffic probes."""
