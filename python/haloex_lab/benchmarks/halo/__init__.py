"""The halo benchmark (`bench halo`), in the order its data flows:

    noise.py      calibration points, round-to-round noise, physics flags
    points.py     records summarised: sweeps, strong-scaling series, speedups
    recommend.py  the fastest strategy per size, through paired rounds
    figures.py    its figures
    section.py    its part of the report: section() and recommendation()

Imports nothing itself (see benchmarks/__init__.py)."""
