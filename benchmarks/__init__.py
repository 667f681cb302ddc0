"""Benchmarks: scripts that print numbers; never run by the test suite."""
