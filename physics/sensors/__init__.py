"""What a robot reads of its world: range rays, and the onboard sensors (GPS, IMU, compass, battery
gauge, bump) with their seeded noise, each sampled at a rate within one documented range."""
