"""A Jupyter kernel (IPython's) that runs under the runtime, for %%memprof.

    python3 -m spprof._kernel -f CONNECTION_FILE     (what Jupyter runs)
    python3 -m spprof.memprof kernel install [--user | --prefix DIR]

The kernel starts as IPython's own does, but first runs itself again
under the runtime (spprof._session), so that %%memprof can measure a cell
with every allocation of the process in sight; between cells the runtime
samples almost never.  Its profile is removed when the kernel exits.
"""

import atexit
import json
import os
import sys
import tempfile
from typing import Optional

from . import _session

NAME = "spprof-python3"
DISPLAY_NAME = "Python 3 (spprof-mem)"


def install(user: bool, prefix: Optional[str]) -> str:
    """Installs the kernel's specification; returns where."""
    from jupyter_client.kernelspec import KernelSpecManager
    spec = {
        "argv": [sys.executable, "-m", "spprof._kernel",
                 "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
    }
    with tempfile.TemporaryDirectory() as source:
        with open(os.path.join(source, "kernel.json"), "w",
                  encoding="utf-8") as out:
            json.dump(spec, out, indent=1)
        return KernelSpecManager().install_kernel_spec(
            source, NAME, user=user, prefix=prefix)


def _finish() -> None:
    from ._stream import own_profile
    _session.finish(own_profile(_session.session_directory()))


def main() -> None:
    if _session.session_directory() is None:
        _session.run_again_under_runtime("kernel")
    atexit.register(_finish)
    from ipykernel import kernelapp
    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
