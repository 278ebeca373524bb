"""The no-op build (compiled without LATREC_ENABLE): the same module, the
same constants and argument checks, and nothing stored anywhere."""
import json
import os

import pytest

from conftest import NOOP_DIR, readelf, run_py
from test_module import ERRORS, error_lines, module_constants, module_file


@pytest.fixture
def noop():
    if not NOOP_DIR or not os.path.isdir(NOOP_DIR):
        pytest.skip("no no-op build of the module (LATREC_PY_NOOP unset: run through ctest)")
    return NOOP_DIR


def test_noop_calls_store_nothing(noop, tmp_path):
    code = r"""
import json, os, sys, threading, latrec
latrec.set_output_dir(sys.argv[1])
latrec.set_catalog("noop")
res = dict(enabled=latrec.ENABLED, open=latrec.open_as("noop"), seq=latrec.seq_next(),
           now=latrec.now())
latrec.stamp(1, latrec.RECV)
latrec.stamp(1, latrec.RECV, 2, aux2=3)
latrec.stamp_at(1, latrec.RECV, 5, 6, 7)
latrec.ctx_set(9)
res["ctx"] = latrec.ctx()
t = threading.Thread(target=lambda: res.update(thread_open=latrec.open_as("t")))
t.start(); t.join()
print(json.dumps(res))
"""
    out = tmp_path / "rings"
    p = run_py(code, out, env={"PYTHONPATH": noop, "LATREC_OUTPUT_DIR": str(tmp_path / "env")})
    assert json.loads(p.stdout) == dict(enabled=False, open=False, seq=0, now=0, ctx=0,
                                        thread_open=False)
    assert p.stderr == ""
    assert not out.exists() and not (tmp_path / "env").exists()


def test_noop_has_the_same_constants_and_checks(noop):
    assert module_constants(noop) == module_constants()
    assert error_lines(noop) == error_lines()
    assert len(error_lines(noop)) == len(ERRORS)


def test_noop_needs_no_liblatrec(noop):
    so = module_file(noop)
    assert os.path.dirname(so) == os.path.abspath(noop)
    needed = [line for line in readelf("-dW", so).splitlines() if "(NEEDED)" in line]
    assert needed and not [line for line in needed if "liblatrec" in line], needed


@pytest.mark.usefixtures("enabled_module")
def test_the_real_module_links_liblatrec():
    real = [line for line in readelf("-dW", module_file()).splitlines() if "(NEEDED)" in line]
    assert [line for line in real if "liblatrec.so.1" in line], real
