"""python3 -m spprof.memprof: memprof-wrap and memprof-report for Python users.

    python3 -m spprof.memprof run [OPTION]... script.py [ARGUMENT]...
    python3 -m spprof.memprof run [OPTION]... -m module [ARGUMENT]...
    python3 -m spprof.memprof report [OPTION]... FILE...
    python3 -m spprof.memprof kernel install [--user | --prefix DIR]

``run`` is ``memprof-wrap [OPTION]... -- python3 script.py ...`` with this
interpreter: the process is replaced by memprof-wrap, so the options, the
profiles written and the exit status are memprof-wrap's.  ``report`` is
memprof-report.  ``kernel install`` installs the Jupyter kernel of
spprof._kernel.  Both programs are those of the build tree when the
package runs from it, else the ones found on PATH.
"""

import os
import shutil
import subprocess
import sys
from typing import List, NoReturn, Optional, Sequence

USAGE = """\
usage: python3 -m spprof.memprof run [OPTION]... script.py [ARGUMENT]...
       python3 -m spprof.memprof run [OPTION]... -m module [ARGUMENT]...
       python3 -m spprof.memprof report [OPTION]... FILE...
       python3 -m spprof.memprof kernel install [--user | --prefix DIR]

run     runs the program with this Python under memprof-wrap; the OPTIONs
        are memprof-wrap's (-o FILE, -r RATE, --python-allocators=...):
        see memprof-wrap --help
report  is memprof-report: see memprof-report --help
kernel  installs the Jupyter kernel "Python 3 (spprof-mem)", which runs
        under the runtime, for the %%memprof cell magic
"""

# memprof-wrap's options that take a value (getopt_long also accepts a
# unique prefix of a long name, and "-oFILE", "--output=FILE").
_SHORT_WITH_VALUE = "or"
_LONG_WITH_VALUE = ("output", "rate", "python-allocators", "unwind")


def tool_path(name: str) -> Optional[str]:
    """The build tree's program `name` when this package runs from the
    build tree (its extension module is linked there), else `name` on
    PATH, else None."""
    from . import _memprof
    libs = os.path.dirname(os.path.realpath(_memprof.__file__))
    if libs.endswith(os.path.join("", "python", "spprof", ".libs")):
        built = os.path.join(libs, "..", "..", "..", "src", name)
        if os.access(built, os.X_OK):
            return os.path.normpath(built)
    return shutil.which(name)


def report_output(arguments: Sequence[str]) -> str:
    """What memprof-report writes with these arguments; RuntimeError
    saying why when it cannot run or fails."""
    path = tool_path("memprof-report")
    if path is None:
        raise RuntimeError("memprof-report not found: install spprof-mem")
    done = subprocess.run([path, *arguments], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise RuntimeError(f"memprof-report: {done.stderr.strip()}")
    return done.stdout


def _exec_tool(name: str, arguments: Sequence[str]) -> NoReturn:
    path = tool_path(name)
    if path is None:
        sys.exit(f"spprof.memprof: {name} not found on PATH; install "
                 "spprof-mem (Debian: apt install spprof-mem)")
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(path, [name, *arguments])
    except OSError as e:
        sys.exit(f"spprof.memprof: {path}: {e.strerror}")


def _takes_value(argument: str) -> bool:
    """Whether memprof-wrap option `argument` is followed by its value."""
    if argument.startswith("--"):
        name = argument[2:]
        return "=" not in name and any(
            long.startswith(name) for long in _LONG_WITH_VALUE)
    for i, letter in enumerate(argument[1:], 1):
        if letter in _SHORT_WITH_VALUE:
            return i == len(argument) - 1
    return False


def split_run_arguments(arguments: Sequence[str]) -> tuple:
    """(memprof-wrap's options, the Python command line that follows):
    the options end at "--", at -m or at the first argument that is not
    an option."""
    i = 0
    while i < len(arguments):
        argument = arguments[i]
        if argument == "--":
            return list(arguments[:i]), list(arguments[i + 1:])
        if (not argument.startswith("-") or argument == "-"
                or argument.startswith("-m")):
            break
        i += 2 if _takes_value(argument) else 1
    return list(arguments[:i]), list(arguments[i:])


def _run(arguments: List[str]) -> NoReturn:
    options, program = split_run_arguments(arguments)
    if not program:
        if any(o in ("-h", "--help", "-V", "--version") for o in options):
            _exec_tool("memprof-wrap", options)
        sys.stderr.write("spprof.memprof run: no script or -m module "
                         "given\n" + USAGE)
        sys.exit(2)
    _exec_tool("memprof-wrap", [*options, "--", sys.executable, *program])


def _report(arguments: List[str]) -> NoReturn:
    _exec_tool("memprof-report", arguments)


def _kernel(arguments: List[str]) -> int:
    import argparse
    parser = argparse.ArgumentParser(
        prog="python3 -m spprof.memprof kernel",
        description="Install the Jupyter kernel \"Python 3 (spprof-mem)\", "
                    "which runs under the runtime, for %%memprof.")
    parser.add_argument("action", choices=["install"])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true",
                       help="for this user only")
    where.add_argument("--prefix", help="under PREFIX/share/jupyter")
    options = parser.parse_args(arguments)
    from . import _kernel as kernel
    try:
        path = kernel.install(options.user, options.prefix)
    except (ImportError, OSError) as e:
        sys.exit(f"spprof.memprof kernel: {e}")
    print(f"installed the kernel {kernel.DISPLAY_NAME!r} in {path}")
    return 0


def _help(arguments: List[str]) -> int:
    sys.stdout.write(USAGE)
    return 0


COMMANDS = {
    "run": _run,
    "report": _report,
    "kernel": _kernel,
    "-h": _help,
    "--help": _help,
}


def main(arguments: Optional[Sequence[str]] = None) -> int:
    arguments = list(sys.argv[1:] if arguments is None else arguments)
    command = COMMANDS.get(arguments[0] if arguments else "")
    if command is None:
        sys.stderr.write((f"spprof.memprof: unknown command {arguments[0]!r}"
                          "\n" if arguments else "") + USAGE)
        return 2
    return command(arguments[1:])
