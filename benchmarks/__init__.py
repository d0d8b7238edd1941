"""The performance suite: synthetic vaults, measurements, reports (`make bench`)."""
