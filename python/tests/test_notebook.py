"""%load_ext spprof.memprof and %%memprof in a notebook executed headless
by nbclient on the kernel "Python 3 (spprof-mem)" and on IPython's own,
and the cell's HTML output opened in headless Chromium."""

import html
import re
import shutil
import subprocess
import sys

import pytest

from conftest import comprehension_site, environment

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    "%load_ext spprof.memprof",
    "%%memprof\n"
    "def build_table():\n"
    "    return [bytearray(100_000) for _ in range(100)]\n"
    "kept = build_table()",
    "%memprof_report --top 3",
    "%%memprof\n"
    "def explode():\n"
    "    data = bytearray(10_000_000)\n"
    "    raise ValueError('boom')\n"
    "explode()",
    "print('still alive', len(kept))",
]

# Objects of pymalloc's size (512 bytes or less).
SMALL_OBJECTS = ("%%memprof\n"
                 "def few_strings():\n"
                 "    return [str(i) * 3 for i in range(200_000)]\n"
                 "few = few_strings()")

RUN = '''\
import sys
import nbformat
from nbclient import NotebookClient
notebook = nbformat.v4.new_notebook()
notebook.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
NotebookClient(notebook, kernel_name="spprof-python3", timeout=300,
               allow_errors=True).execute()
nbformat.write(notebook, sys.argv[1])
'''


# build_table's 100 blocks of 100,000 bytes
BUILD_TABLE_MIB = 100 * 100_000 / 2**20


def assert_peak_within_error_bars(text, truth_mib):
    """The summary's peak is within twice its 95 % interval of the truth
    (about four standard errors, as one run in twenty falls outside the
    interval itself), and the interval is narrow enough to say something."""
    summary = re.search(r"held ([\d.]+) MiB ± ([\d.]+) (MiB|KiB) at its peak",
                        text)
    assert summary, text
    estimate = float(summary[1])
    half_width = float(summary[2]) / (1 if summary[3] == "MiB" else 1024)
    assert abs(estimate - truth_mib) <= 2 * half_width, text
    assert half_width < truth_mib / 4, text


def outputs(cell):
    texts = [o.get("text", "") for o in cell.outputs
             if o.output_type == "stream"]
    pages = [o.data["text/html"] for o in cell.outputs
             if o.output_type == "display_data" and "text/html" in o.data]
    errors = [o.ename for o in cell.outputs if o.output_type == "error"]
    return "".join(texts), pages, errors


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    directory = tmp_path_factory.mktemp("notebook")
    prefix = directory / "prefix"
    env = environment(directory, preload=False, extra={
        "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
        "TMPDIR": str(directory)})
    install = subprocess.run(
        [sys.executable, "-m", "spprof.memprof", "kernel", "install",
         "--prefix", str(prefix)], env=env, capture_output=True, text=True)
    assert install.returncode == 0, install.stderr
    (directory / "run.py").write_text(f"CELLS = {CELLS!r}\n" + RUN)
    run = subprocess.run(
        [sys.executable, "run.py", "out.ipynb"], cwd=directory, env=env,
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    return directory, nbformat.read(directory / "out.ipynb", as_version=4)


def test_a_measured_cell_shows_its_summary_and_page(notebook):
    _, nb = notebook
    text, pages, errors = outputs(nb.cells[1])
    assert errors == [] and len(pages) == 1, nb.cells[1].outputs
    assert "memprof: the cell allocated " in text, text
    assert_peak_within_error_bars(text, BUILD_TABLE_MIB)
    assert f"({comprehension_site('build_table')})" in text
    assert "build_table" in html.unescape(pages[0])


def test_memprof_report_prints_the_text_report(notebook):
    _, nb = notebook
    text, _, errors = outputs(nb.cells[2])
    assert errors == [] and "Peak heap" in text and "build_table" in text


def test_a_cell_that_raises_leaves_the_kernel_working(notebook):
    _, nb = notebook
    text, pages, errors = outputs(nb.cells[3])
    assert errors == ["ValueError"] and len(pages) == 1
    assert "(explode)" in text
    assert outputs(nb.cells[4])[0] == "still alive 100\n"


def test_nothing_is_left_behind(notebook):
    directory, _ = notebook
    left = [p.name for p in directory.iterdir() if p.name.startswith(
        ("spprof-kernel-", "spprof-cells-"))]
    assert left == []


def test_the_page_works_in_chromium(notebook):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no chromium")
    directory, nb = notebook
    _, pages, _ = outputs(nb.cells[1])
    # the output as the notebook shows it, and the page in its frame
    output = directory / "output.html"
    output.write_text("<!DOCTYPE html><html><body>" + pages[0] +
                      "</body></html>", encoding="utf-8")
    inner = directory / "inner.html"
    inner.write_text(html.unescape(
        re.search(r'srcdoc="([^"]*)"', pages[0])[1]), encoding="utf-8")
    for page in (output, inner):
        profile = directory / f"chromium-{page.stem}"
        done = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--no-first-run",
             f"--user-data-dir={profile}", "--enable-logging=stderr",
             "--v=0", "--dump-dom", page.as_uri()],
            capture_output=True, text=True, timeout=120)
        assert "CONSOLE" not in done.stderr, done.stderr
        dom = done.stdout
        if page == inner:
            assert 'data-ready="1"' in dom
            assert "build_table" in dom
        else:
            assert "<iframe" in dom


def test_a_plain_kernel_loads_the_runtime_and_measures_a_cell(tmp_path):
    """IPython's own kernel, started without the runtime: %load_ext loads
    it in place (memprof-ctl attach) and a cell names its function, at
    the size of what it allocated, small objects included."""
    script = RUN.replace('"spprof-python3"', '"python3"')
    cells = CELLS[:3] + [SMALL_OBJECTS, "del few\nprint(len(kept))"]
    (tmp_path / "run.py").write_text(
        f"CELLS = {cells!r}\n" + script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "run.py", "out.ipynb"], cwd=tmp_path,
        env=environment(tmp_path, preload=False,
                        extra={"TMPDIR": str(tmp_path)}),
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    cells = nbformat.read(tmp_path / "out.ipynb", as_version=4).cells
    text, _, errors = outputs(cells[0])
    assert errors == [] and "runtime is loaded into this kernel" in text
    text, pages, errors = outputs(cells[1])
    assert errors == [] and len(pages) == 1, cells[1].outputs
    assert_peak_within_error_bars(text, BUILD_TABLE_MIB)
    assert f"({comprehension_site('build_table')})" in text
    assert "not counted" not in text
    text, _, errors = outputs(cells[2])
    assert errors == [] and "build_table" in text
    # 200,000 strings of 49 + 15 bytes and their list's 1.6 MB: pymalloc's
    # alone, they would leave only the list in sight
    text, _, errors = outputs(cells[3])
    summary = re.search(r"held ([\d.]+) MiB .* at its peak", text)
    assert errors == [] and summary and 9.0 < float(summary[1]) < 18.0, text
    assert f"({comprehension_site('few_strings')})" in text
    # freeing them after the cell, through pymalloc again, is fine
    assert outputs(cells[4]) == ("100\n", [], [])
    # the kernel has finished its profile and removed it
    assert [p.name for p in tmp_path.iterdir()
            if p.name.startswith("spprof-")] == []
