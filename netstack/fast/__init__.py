"""The built-in numpy radio model: path loss, threshold, Bernoulli loss, latency + serialization."""
