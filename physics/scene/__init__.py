"""What surrounds the robots: static obstacles, movable props and terrain, and the wind and other
force models acting on flying vehicles."""
