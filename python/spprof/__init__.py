"""spprof: sampling profilers for Python programs.

spprof.memprof is the heap profiler of spprof-mem: it reports which code
holds heap memory, from a Poisson sample of the allocations made through
malloc.  Run the program under its runtime (``memprof-wrap python3 app.py``)
and see help(spprof.memprof).
"""

__all__ = ["memprof"]
