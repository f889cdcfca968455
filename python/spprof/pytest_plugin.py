"""pytest plugin of spprof-mem: what each test allocates, and limits on it.

    pytest --memprof                       # the tests that allocated the most
    @pytest.mark.limit_memory("24 MB")     # the most the test may hold at once
    @pytest.mark.limit_leaks("1 MB")       # what it may leave behind

Registered through the pytest11 entry point (``-p spprof.pytest_plugin``
from a build tree).  With --memprof, pytest runs again at once under the
runtime (LD_PRELOAD of the libspprof-alloc this package is linked with)
and with PYTHONMALLOC=malloc, so that Python's small objects go through
malloc too; the runtime streams the profile of each pytest process into a
private directory (--memprof-dir keeps it), which the plugin reads as the
tests run.  Between tests the runtime samples almost never (at rate 1; see
idle_rate()); while a test runs it samples one allocation per --memprof-rate bytes, by default 1: every
allocation, so that the numbers are exact.  At a coarser rate each number is
an estimate with a 95 % interval (the peak memprof-report's, cross-fitted:
the largest of the estimates along the test would overstate it), and a
limit that lies inside that interval is reported as undecided rather than
passed or failed.

What a test "holds" is the memory it allocated and had not freed yet, at its
worst moment; what it "leaves behind" is what it allocated and was still
allocated after it returned and a garbage collection ran.  Both count the
allocations of the test's thread and of the threads it starts, and, at a
rate other than 1, of the threads already running (see idle_rate());
warm-up runs (--memprof-warmups, or warmups= on a marker) run the test
first without measuring it, for caches that fill on first use.
--memprof-limit-memory=SIZE and --memprof-limit-leaks=SIZE (or
memprof_limit_memory and memprof_limit_leaks in the ini file) give every
test without a marker of its own that limit.
"""

import argparse
import gc
import itertools
import math
import tempfile
from dataclasses import asdict
from typing import TYPE_CHECKING, Dict, List, NamedTuple

import pytest

from . import _session
from ._sizes import human, parse_size

if TYPE_CHECKING:
    from ._measure import Figure, Measurement

# The bindings (and the runtime library they are linked with) are loaded
# only with --memprof: a plugin that every pytest run imports costs little.

_START, _END = "pytest start ", "pytest end "

# ---- options and markers ---------------------------------------------------


def size_option(text: str) -> int:
    """A size on the command line; a bad one is said as argparse says it."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memprof", "memory profiling (spprof-mem)")
    group.addoption("--memprof", action="store_true",
                    help="measure what each test allocates, enforce the "
                         "limit_memory and limit_leaks markers and list "
                         "the tests that allocated the most")
    group.addoption("--memprof-dir", metavar="DIR",
                    help="keep the profiles (.mlyze, one per pytest "
                         "process) in DIR; by default none is kept")
    group.addoption("--memprof-rate", metavar="BYTES", type=size_option,
                    default=1,
                    help="one sample per BYTES allocated while a test runs "
                         "(default 1: every allocation, exact figures)")
    group.addoption("--memprof-top", metavar="N", type=int, default=5,
                    help="how many tests the summary lists (default 5)")
    group.addoption("--memprof-warmups", metavar="N", type=int, default=0,
                    help="run each test N times unmeasured first "
                         "(default 0)")
    for marker, (_, _, bound) in _LIMITS.items():
        group.addoption(f"--memprof-{marker.replace('_', '-')}",
                        metavar="SIZE", type=size_option,
                        help=f"{bound} for every test without a {marker} "
                             f"marker (also the ini option memprof_{marker})")
        parser.addini(f"memprof_{marker}",
                      f"the {marker} of every test without a {marker} "
                      "marker ('24 MB')")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "limit_memory(limit, warmups=None): fail under --memprof "
        "when the test holds more than limit ('24 MB') at once")
    config.addinivalue_line(
        "markers", "limit_leaks(limit, warmups=None): fail under --memprof "
        "when the test leaves more than limit ('1 MB') allocated")
    if not config.getoption("memprof"):
        return
    if _session.session_directory() is None:
        capture = config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.stop_global_capturing()
        try:
            _session.run_again_under_runtime(
                "pytest", config.getoption("memprof_dir"),
                idle_rate(config.getoption("memprof_rate")))
        except (OSError, RuntimeError) as e:
            raise pytest.UsageError(f"--memprof: {e}") from None
    config.pluginmanager.register(_Profiler(config), "spprof-memprof")


def idle_rate(rate: int) -> int:
    """The sampling rate between tests, when tests sample at `rate`.

    The sampler keeps each thread's distance to its next sample, and a
    change of rate redraws only the calling thread's: another thread goes
    on with a distance drawn at the rate before.  Sampling at the tests'
    rate throughout, the threads already running when a test starts are
    seen as its own thread is; every allocation (rate 1) cannot be
    recorded throughout, so there they sample once per GiB between tests,
    and are all but unseen during them."""
    return rate if rate > 1 else _session.IDLE_RATE


# ---- limits ------------------------------------------------------------

_LIMITS = {
    # marker: (figure it bounds, what the figure is, what the limit is)
    "limit_memory": ("peak", "the test held {} at its peak",
                     "the most a test may hold at once"),
    "limit_leaks": ("leaked", "the test left {} behind",
                    "what a test may leave allocated"),
}


def default_limits(config: pytest.Config) -> Dict[str, int]:
    """The limits of the tests without a marker of their own, by marker
    name: from the command line, else from the ini file."""
    limits = {}
    for marker in _LIMITS:
        limit = config.getoption(f"memprof_{marker}")
        if limit is None and config.getini(f"memprof_{marker}"):
            text = config.getini(f"memprof_{marker}")
            try:
                limit = parse_size(text)
            except ValueError as e:
                raise pytest.UsageError(
                    f"memprof_{marker} = {text!r} in the ini file: {e}") \
                    from None
        if limit is not None:
            limits[marker] = limit
    return limits


# At a rate S, allocations adding up to -ln(0.05) S = 3 S bytes go
# unsampled one time in twenty: the upper end of an interval is never
# closer to the estimate than that, even when nothing was sampled.
_UNSEEN_RATES = -math.log(0.05)


def decide(figure: "Figure", limit: int, rate: int) -> str:
    """"over" when the whole 95 % interval lies above the limit, "within"
    when it lies at or below it, else "undecided"."""
    if figure.bytes - figure.margin > limit:
        return "over"
    if figure.bytes + max(figure.margin, _UNSEEN_RATES * rate) <= limit:
        return "within"
    return "undecided"


def _limit_message(m: "Measurement", limit: "Limit", verdict: str) -> str:
    name, meaning, _ = _LIMITS[limit.marker]
    figure = getattr(m, name)
    said = {"over": "over", "undecided": "too close to tell against"}[verdict]
    whose = "its" if limit.marked else "the default"
    lines = [f"{limit.marker}: {meaning.format(m.figure(name))}, {said} "
             f"{whose} limit of {human(limit.size)}",
             f"  {m.how()}",
             "  allocated by:" if figure.sites else "  (no allocation)"]
    lines += [f"    {human(b):>10}  {label}" for label, b in figure.sites]
    return "\n".join(lines)


class Limit(NamedTuple):
    marker: str  # "limit_memory", "limit_leaks"
    size: int
    marked: bool  # the test's own marker, not the default


# ---- the plugin at work ------------------------------------------------


class _Profiler:
    def __init__(self, config: pytest.Config) -> None:
        from . import _memprof
        if not _memprof.interposing():
            raise pytest.UsageError(
                "--memprof: pytest was started again under the runtime "
                "but the runtime does not serve malloc (is LD_PRELOAD "
                "ignored here?)")
        self.memprof = _memprof
        self.config = config
        self.directory = _session.session_directory()
        self.rate = config.getoption("memprof_rate")
        self.idle_rate = idle_rate(self.rate)
        self.warmups = config.getoption("memprof_warmups")
        self.default_limits = default_limits(config)
        self.reader = None
        self.results: List[dict] = []
        self.undecided: List[str] = []
        self.rootdir = str(config.rootpath)

    def _stream(self):
        if self.reader is None:
            from ._stream import StreamReader, own_profile
            path = own_profile(self.directory)
            if path is None:
                raise RuntimeError("spprof: the profile being recorded "
                                   f"is not found in {self.directory}")
            self.reader = StreamReader(path)
        return self.reader

    def measured_call(self, item: pytest.Function, test, args, kwargs):
        """Runs test(*args, **kwargs) measured; a Measurement.  The
        events of a test that raises are read all the same, so that the
        next test's reading starts after them."""
        start, end = _START + item.nodeid, _END + item.nodeid
        gc.collect()
        self.memprof.marker(start)
        self.memprof.set_sampling_rate(self.rate)
        try:
            test(*args, **kwargs)
        finally:
            self.memprof.set_sampling_rate(self.idle_rate)
            gc.collect()
            self.memprof.marker(end)
            measured = self._measure(item, start, end)
        return measured

    def _measure(self, item: pytest.Function, start: str, end: str):
        from ._measure import cross_fitted_peak, measure
        from ._stream import read_stretch
        reader = self._stream()
        if self.rate == 1:
            # Every allocation: follow them as they are read.  What the
            # previous test's reading allocated comes before the start.
            events = itertools.dropwhile(
                lambda event: event != ("marker", start),
                reader.events_until(end))
            return measure(events, reader.stacks, item.nodeid, self.rate,
                           self.rootdir, __file__)
        events, excerpt = read_stretch(reader, start, end)
        m = measure(events, reader.stacks, item.nodeid, self.rate,
                    self.rootdir, __file__)
        with tempfile.NamedTemporaryFile(dir=self.directory,
                                         suffix=".mlyze") as profile:
            excerpt.save(profile.name, sampling_rate=self.rate)
            cross_fitted_peak(m, profile.name)
        return m

    @pytest.hookimpl(hookwrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function):
        test = pyfuncitem.obj
        limits, asked = [], []
        for name in _LIMITS:
            marker = pyfuncitem.get_closest_marker(name)
            if marker:
                limits.append(Limit(name, parse_size(
                    marker.args[0] if marker.args
                    else marker.kwargs["limit"]), True))
                if "warmups" in marker.kwargs:
                    asked.append(marker.kwargs["warmups"])
            elif name in self.default_limits:
                limits.append(Limit(name, self.default_limits[name], False))
        warmups = max(asked) if asked else self.warmups

        def measured(*args, **kwargs):
            for _ in range(warmups):
                test(*args, **kwargs)
            m = self.measured_call(pyfuncitem, test, args, kwargs)
            pyfuncitem.user_properties.append(("memprof", asdict(m)))
            self._check(pyfuncitem, m, limits)

        pyfuncitem.obj = measured
        try:
            yield
        finally:
            pyfuncitem.obj = test

    def _check(self, item, m: "Measurement", limits: List[Limit]) -> None:
        failures = []
        for limit in limits:
            verdict = decide(getattr(m, _LIMITS[limit.marker][0]),
                             limit.size, m.rate)
            if verdict == "over":
                failures.append(_limit_message(m, limit, verdict))
            elif verdict == "undecided":
                item.user_properties.append(
                    ("memprof-undecided",
                     _limit_message(m, limit, verdict)))
        if failures:
            pytest.fail("\n".join(failures), pytrace=False)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == "memprof":
                self.results.append(value)
            elif key == "memprof-undecided":
                self.undecided.append(f"{report.nodeid}: {value}")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        from ._measure import Figure, Measurement, allocations
        write = terminalreporter.write_line
        top = sorted(self.results, key=lambda r: -r["allocated"]["bytes"])
        top = top[:self.config.getoption("memprof_top")]
        if top:
            terminalreporter.section("memprof: the tests that allocated "
                                     "the most")
        for r in top:
            m = Measurement(r["nodeid"], r["rate"], r["samples"],
                            *(Figure(**r[k]) for k in
                              ("allocated", "peak", "leaked")))
            write(f"{m.nodeid}: allocated {m.figure('allocated')} in "
                  f"{allocations(m.samples)}, held {m.figure('peak')} at "
                  f"its peak, left {m.figure('leaked')}")
            for label, b in m.allocated.sites[:3]:
                write(f"    {human(b):>10}  {label}")
        if self.undecided:
            terminalreporter.section("memprof: limits undecided (within "
                                     "the 95 % interval)")
            for text in self.undecided:
                write(text)

    def pytest_sessionfinish(self) -> None:
        # Now, before an xdist controller (the first process) removes the
        # directory of the profiles.
        _session.finish(self.reader.path if self.reader else None)
