"""finrag command line: the only layer that imports everything."""
