"""haloex-lab: campaigns of haloex benchmarks, reports and plots."""

__version__ = "0.4.0"
