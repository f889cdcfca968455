"""IPython and Jupyter: ``%load_ext spprof.memprof``, then

    %%memprof [-r RATE]      run the cell measured: a one-line summary and
                             the HTML view of memprof-report, inline
    %memprof_report [OPTION]...
                             memprof-report's text report of the last
                             measured cell (its options: --top 5, ...)

The kernel "Python 3 (spprof-mem)" (python3 -m spprof.memprof kernel
install --user) runs under the runtime with a recording, and so does any
kernel started under memprof-wrap.  In another kernel, %load_ext loads
the runtime into it and starts the recording (spprof._late: memprof-ctl
attach; Python's small objects go through malloc while a cell runs).
A cell is
measured from the profile the runtime streams: the plugin marks where the
cell starts and ends, copies that stretch into a profile of its own (which
memprof-report reads, offline) and measures it.  An exception in the cell
is shown as IPython shows it; the measurement of what ran still is.
"""

import atexit
import gc
import html
import os
import shutil
import tempfile
from typing import Any, List, Optional

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, \
    parse_argstring
from IPython.display import HTML, display

from . import _memprof, _session
from ._cli import report_output
from ._late import AttachError, attach_here, small_objects_routable, unseen
from ._measure import allocations as _allocations, cross_fitted_peak, \
    measure
from ._sizes import human, parse_size
from ._stream import StreamReader, own_profile, read_stretch

_START, _END = "cell start ", "cell end "
#: The sampling rate of a measured cell unless -r says otherwise.
DEFAULT_CELL_RATE = 64 * 1024

HOW_TO_RUN = ("choose the kernel \"Python 3 (spprof-mem)\", installed by "
              "python3 -m spprof.memprof kernel install --user, or start "
              "Jupyter under memprof-wrap")


def _recording_directory() -> Optional[str]:
    """Where the runtime streams this process's profile, or None."""
    if not _memprof.interposing():
        return None
    output = os.environ.get("SPPROF_OUTPUT")
    return _session.session_directory() or (
        os.path.dirname(output) if output else None)


@magics_class
class MemprofMagics(Magics):
    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.reader: Optional[StreamReader] = None
        self.cells = 0
        self.last_profile: Optional[str] = None
        self.scratch = tempfile.mkdtemp(prefix="spprof-cells-")
        atexit.register(shutil.rmtree, self.scratch, True)
        self.directory = _recording_directory()
        self.attached = self.not_attached = None
        if self.directory is None:
            self._attach()

    def _attach(self) -> None:
        """Loads the runtime into this kernel and starts its recording."""
        try:
            self.directory = self.attached = attach_here("kernel")
            print("memprof: the runtime is loaded into this kernel"
                  + (f"; {unseen()}" if unseen() else ""))
        except AttachError as e:
            self.not_attached = ("this kernel does not run under the "
                                 "spprof-mem runtime, which could not be "
                                 f"loaded into it ({e}): " + HOW_TO_RUN)
            print("memprof: " + self.not_attached)

    def _stream(self) -> StreamReader:
        if self.reader is None:
            path = own_profile(self.directory or "")
            if path is None:
                raise UsageError("%%memprof: no profile is being recorded; "
                                 + HOW_TO_RUN)
            self.reader = StreamReader(path)
        return self.reader

    @magic_arguments()
    @argument("-r", "--rate", default=None,
              help="one sample per RATE bytes allocated in the cell "
                   "(default 64K; 1: every allocation)")
    @cell_magic
    def memprof(self, line: str, cell: str) -> None:
        """Run the cell measured by spprof-mem and show where it
        allocated: a summary line and memprof-report's HTML view."""
        options = parse_argstring(self.memprof, line)
        if self.directory is None:
            raise UsageError("%%memprof: " + self.not_attached)
        try:
            rate = (parse_size(options.rate) if options.rate
                    else DEFAULT_CELL_RATE)
        except ValueError as e:
            raise UsageError(f"%%memprof: -r: {e}") from None
        self.cells += 1
        start = f"{_START}{self.cells}"
        events, excerpt = self._run(cell, start, rate)
        m = measure(events, self.reader.stacks, "cell", rate, os.getcwd(),
                    __file__)
        self.last_profile = os.path.join(self.scratch,
                                         f"cell{self.cells}.mlyze")
        excerpt.save(self.last_profile, sampling_rate=rate)
        if rate > 1:
            try:
                cross_fitted_peak(m, self.last_profile)
            except RuntimeError as e:
                raise UsageError(str(e)) from None
        page = self.last_profile[:-len(".mlyze")] + ".html"
        self._report(["-o", page])
        with open(page, encoding="utf-8") as f:
            display(HTML(_inline(f.read())))
        caveat = unseen(short=True) if self.attached else ""
        print(_summary(m) + (f"; {caveat}" if caveat else ""))

    def _run(self, cell: str, start: str, rate: int):
        """Runs the cell between two markers; its events and their copy."""
        end = _END + start[len(_START):]
        previous = _memprof.stats()["sampling_rate"]
        route = self.attached and small_objects_routable()
        gc.collect()
        _memprof.marker(start)
        _memprof.set_sampling_rate(rate)
        _memprof.route_small_objects(route)
        try:
            self.shell.run_cell(cell)
        finally:
            _memprof.route_small_objects(False)
            _memprof.set_sampling_rate(previous)
            _memprof.marker(end)
            read = read_stretch(self._stream(), start, end)
        return read

    def _report(self, options: List[str]) -> str:
        if self.last_profile is None:
            raise UsageError("no cell measured yet: run one with %%memprof")
        try:
            return report_output([*options, self.last_profile])
        except RuntimeError as e:
            raise UsageError(str(e)) from None

    @line_magic
    def memprof_report(self, line: str) -> None:
        """memprof-report's text report of the last %%memprof cell; the
        line holds memprof-report's options (--top 5, --at end...)."""
        print(self._report(line.split()), end="")


def _inline(page: str) -> str:
    """The self-contained page in a frame of its own, so that its script
    and styles cannot touch the notebook's."""
    return ('<div><iframe style="width: 100%; height: 720px; border: 0" '
            f'srcdoc="{html.escape(page, quote=True)}"></iframe></div>')


def _summary(m) -> str:
    sites = m.peak.sites or m.allocated.sites
    where = f"; most at {sites[0][0]}" if sites else ""
    how = ("every allocation recorded" if m.rate == 1 else
           f"one sample per {human(m.rate)}, 95 % intervals")
    return (f"memprof: the cell allocated {m.figure('allocated')} "
            f"({_allocations(m.samples, 'sampled ')}), "
            f"held {m.figure('peak')} "
            f"at its peak and left {m.figure('leaked')}{where} ({how})")


def register(ipython: Any) -> None:
    ipython.register_magics(MemprofMagics)
