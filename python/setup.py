"""Builds the spprof package on its own, against an installed
libspprof-alloc found with pkg-config, for Python interpreters other than
the one spprof-mem was configured with:

    pip install --no-build-isolation ./python

(the Autotools build of spprof-mem builds and installs the package itself).
"""

import shlex
import subprocess

from setuptools import Extension, setup


def pkg_config(*options):
    try:
        out = subprocess.run(["pkg-config", *options, "spprof-alloc"],
                             check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("spprof: pkg-config cannot find spprof-alloc; "
                         "install spprof-mem or set PKG_CONFIG_PATH "
                         f"({e})") from None
    return shlex.split(out.stdout)


setup(
    name="spprof",
    version=pkg_config("--modversion")[0],
    description="Sampling heap profiler for Python programs (spprof-mem)",
    packages=["spprof"],
    entry_points={"pytest11": ["spprof.pytest_plugin = spprof.pytest_plugin"]},
    ext_modules=[Extension(
        "spprof._memprof",
        sources=["ext/module.c", "ext/walker.c"],
        extra_compile_args=pkg_config("--cflags") + ["-fvisibility=hidden"],
        extra_link_args=pkg_config("--libs"),
    )],
)
