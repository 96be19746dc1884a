"""Benchmarks of polybook itself; not part of the package or the book."""
