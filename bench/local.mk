## Benchmarks (not run by make check).
