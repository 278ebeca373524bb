"""`make install` puts the module into the interpreter's site directory
under the prefix, honouring DESTDIR; the installed module imports there and
loads the installed liblatrec (its RUNPATH is relative to itself), not the
build tree's."""
import os
import re
import subprocess

import pytest

from conftest import PYTHON, convert, run_py

BUILD = os.environ.get("LATREC_BUILD_DIR")
CMAKE = os.environ.get("CMAKE", "cmake")


def cache(name):
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(rf"{re.escape(name)}:[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                return m.group(1)
    return None


@pytest.fixture(scope="module")
def build():
    if not BUILD or not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        pytest.skip("no build directory (LATREC_BUILD_DIR unset: run through ctest)")
    if cache("LATREC_ENABLE") == "OFF":
        pytest.skip("a build without LATREC_ENABLE installs the no-op module only")
    return BUILD


IMPORT = r"""
import sys, latrec
latrec.set_output_dir(sys.argv[1])
assert latrec.ENABLED and latrec.open_as("installed")
latrec.stamp(5, latrec.RECV, 6, 7)
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "liblatrec" in l})
print(latrec.__file__)
print(" ".join(libs))
"""


def installed_module(root):
    found = [os.path.join(d, f) for d, _, files in os.walk(root) for f in files
             if f.startswith("latrec.") and f.endswith(".so")]
    assert len(found) == 1, found
    return found[0]


def check_import(sitedir, libroot, tmp_path):
    p = run_py(IMPORT, tmp_path / "rings", env={"PYTHONPATH": str(sitedir)})
    module, libs = p.stdout.splitlines()
    assert os.path.dirname(module) == str(sitedir)
    assert libs and all(l.startswith(str(libroot) + "/") for l in libs.split()), libs
    _, records = convert(tmp_path / "rings", tmp_path / "csv")
    assert [(r["seq"], r["stage"], r["aux"], r["aux2"]) for r in records] == [("5", "37", "6", "7")]


def test_install_with_prefix(build, tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run([CMAKE, "--install", build, "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=300)
    module = installed_module(prefix)
    sitedir = cache("LATREC_PYTHON_SITEDIR")
    assert os.path.dirname(module) == str(prefix / sitedir)
    check_import(prefix / sitedir, prefix, tmp_path)


def test_install_with_destdir_lands_in_the_interpreters_site_directory(build, tmp_path):
    stage = tmp_path / "stage"
    env = dict(os.environ, DESTDIR=str(stage))
    subprocess.run([CMAKE, "--install", build], check=True, capture_output=True, timeout=300,
                   env=env)
    prefix = cache("CMAKE_INSTALL_PREFIX")
    sitedir = os.path.join(prefix, cache("LATREC_PYTHON_SITEDIR"))
    module = installed_module(stage)
    assert os.path.dirname(module) == str(stage) + sitedir
    check_import(os.path.dirname(module), str(stage) + prefix, tmp_path)
    # Where the interpreter imports from when the prefix is its own local one
    # (Debian: /usr/local/lib/python3.X/dist-packages).
    path = run_py("import sys; print('\\n'.join(sys.path))").stdout.splitlines()
    if prefix == "/usr/local" and PYTHON == "/usr/bin/python3":
        assert sitedir in path, (sitedir, path)
