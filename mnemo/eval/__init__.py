"""Evaluations of recall quality on public benchmarks."""
