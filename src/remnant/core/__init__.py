"""The core model: memory records, the decay curve, clocks and errors. Pure code, no I/O."""
