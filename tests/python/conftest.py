"""Shared helpers of the Python module tests.

The environment comes from ctest (tests/unit/python.cmake): PYTHONPATH names
the module built in the build tree, LATREC_PY_NOOP the directory of its no-op
build, LATREC the `latrec` command, LATREC_PYTHON the interpreter the module
was built for. Every producer runs in a child interpreter, so each test gets
a fresh process (its own seq counter, output directory and rings).
"""
import csv
import os
import shutil
import subprocess
import sys

import pytest

PYTHON = os.environ.get("LATREC_PYTHON", sys.executable)
LATREC = os.environ.get("LATREC")
NOOP_DIR = os.environ.get("LATREC_PY_NOOP")
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def need_cli():
    if not LATREC or not os.access(LATREC, os.X_OK):
        pytest.skip("no latrec command (LATREC unset: run through ctest)")
    return LATREC


def run_py(code, *args, env=None, check=True, cwd=None):
    """Run `code` in a child interpreter; return the CompletedProcess."""
    full = dict(os.environ)
    full.pop("LATREC_OUTPUT_DIR", None)
    full.update(env or {})
    p = subprocess.run([PYTHON, "-c", code, *map(str, args)], env=full, cwd=cwd,
                       capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"child python exited {p.returncode}\nstdout:\n{p.stdout}\n"
                             f"stderr:\n{p.stderr}")
    return p


def convert(ring_dir, out_dir):
    """Read rings with the project's reader: `latrec convert` to CSV.
    Returns (rings rows, records rows) as lists of dicts."""
    latrec = need_cli()
    subprocess.run([latrec, "convert", "-q", str(ring_dir), "-o", str(out_dir)], check=True,
                   capture_output=True, text=True, timeout=300)
    with open(os.path.join(out_dir, "rings.csv"), newline="") as f:
        rings = list(csv.DictReader(f))
    with open(os.path.join(out_dir, "records.csv"), newline="") as f:
        records = list(csv.DictReader(f))
    return rings, records


def readelf(*args):
    tool = shutil.which("readelf")
    if not tool:
        pytest.skip("readelf not found (Debian: binutils)")
    return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout


_enabled = []


@pytest.fixture
def enabled_module():
    """Skip when the module of this build is the no-op one (LATREC_ENABLE=OFF)."""
    if not _enabled:
        _enabled.append(run_py("import latrec; print(latrec.ENABLED)").stdout.strip() == "True")
    if not _enabled[0]:
        pytest.skip("this build's module is the no-op one (configured with LATREC_ENABLE=OFF)")
