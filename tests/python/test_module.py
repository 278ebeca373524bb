"""The module's API: constants against the header, keyword and error
handling, fork, the TLS model of the shared object, the pydoc page."""
import json
import os
import re
import subprocess

import pytest

from conftest import PYTHON, SOURCE_DIR, convert, readelf, run_py


def header_constants():
    """Every LATREC_<NAME> = <value> enumerator of stages.h, parsed here
    independently of the build's generator."""
    with open(os.path.join(SOURCE_DIR, "include", "latrec", "stages.h")) as f:
        text = f.read()
    pairs = re.findall(r"\bLATREC_([A-Z0-9_]+)\s*=\s*(0x[0-9A-Fa-f]+|\d+)", text)
    return {name: int(value, 0) for name, value in pairs}


def module_constants(pythonpath=None):
    env = {"PYTHONPATH": pythonpath} if pythonpath else None
    code = ("import json, latrec; print(json.dumps(dict(consts={k: getattr(latrec, k) for k in "
            "dir(latrec) if k.isupper() and k not in ('STAGES', 'ENABLED') and not k.startswith('TIMEBASE_')}, "
            "stages=latrec.STAGES, timebases=[latrec.TIMEBASE_MONO, latrec.TIMEBASE_TSC])))")
    return json.loads(run_py(code, env=env).stdout)


def test_constants_match_the_header():
    want = header_constants()
    assert len(want) > 60 and want["RECORD_BEGIN"] == 0x10 and want["DROP_SHUTDOWN"] == 9
    got = module_constants()
    assert got["consts"] == want
    stages = {k: v for k, v in want.items() if not re.match(r"(DROP|SKIP|OUT)_", k)}
    assert got["stages"] == stages
    with open(os.path.join(SOURCE_DIR, "include", "latrec", "format.h")) as f:
        tb = dict(re.findall(r"#define LATREC_TIMEBASE_(MONO|TSC)\s+(\d+)u", f.read()))
    assert got["timebases"] == [int(tb["MONO"]), int(tb["TSC"])]


@pytest.mark.usefixtures("enabled_module")
def test_keywords_and_defaults(tmp_path):
    code = r"""
import sys, latrec
latrec.set_output_dir(sys.argv[1])
assert latrec.open_as(role="kw")
latrec.stamp(1, 0x21)
latrec.stamp(2, 0x22, 3)
latrec.stamp(seq=3, stage=0x23, aux2=4)
latrec.stamp(4, 0x24, aux=5, aux2=2**64 - 1)
latrec.stamp_at(5, 0x25, 123456789, aux2=6)
latrec.stamp_at(t_ns=987654321, seq=6, stage=0x26)
latrec.stamp(True, 0x27)                       # bool is an int
latrec.stamp(2**48 + 9, 0x28)                  # seq keeps its low 48 bits
"""
    run_py(code, tmp_path / "r")
    rings, records = convert(tmp_path / "r", tmp_path / "csv")
    # the main thread's ring was flushed at exit: its header count is exact
    assert [(r["name"].split(".")[0], r["rec_count"]) for r in rings] == [("kw", "8")]
    got = sorted((int(r["seq"]), int(r["stage"]), int(r["aux"]), int(r["aux2"])) for r in records)
    assert got == sorted([(1, 0x21, 0, 0), (2, 0x22, 3, 0), (3, 0x23, 0, 4), (4, 0x24, 5, 2**64 - 1),
                          (5, 0x25, 0, 6), (6, 0x26, 0, 0), (1, 0x27, 0, 0), (9, 0x28, 0, 0)])
    t = {int(r["seq"]): int(r["t_ns"]) for r in records if r["stage"] in ("37", "38")}
    assert t == {5: 123456789, 6: 987654321}


ERRORS = [
    ("latrec.stamp(1)", "TypeError", "missing required argument 'stage'"),
    ("latrec.stamp(1, 2, 3, 4, 5)", "TypeError", "at most 4 arguments"),
    ("latrec.stamp(1, 256)", "ValueError", "stage 256 is not a stage id"),
    ("latrec.stamp(-1, 2)", "OverflowError", "seq must be in 0..2**64-1"),
    ("latrec.stamp(1, 2, 2**64)", "OverflowError", "aux must be in 0..2**64-1"),
    ("latrec.stamp(1, 2, 1.5)", "TypeError", "float"),
    ("latrec.stamp(1, 2, aux3=1)", "TypeError", "unexpected keyword argument 'aux3'"),
    ("latrec.stamp(1, 2, seq=1)", "TypeError", "multiple values for argument 'seq'"),
    ("latrec.stamp_at(1, 2)", "TypeError", "missing required argument 't_ns'"),
    ("latrec.open_as(3)", "TypeError", "role must be a str or None"),
    ("latrec.open_as('a\\0b')", "ValueError", "NUL"),
    ("latrec.set_catalog('x' * 32)", "ValueError", "at most 31 bytes"),
    ("latrec.ctx_set(-1)", "OverflowError", "seq must be in"),
    ("latrec.set_timebase(None, 7)", "ValueError", "TIMEBASE_MONO, TIMEBASE_TSC or None"),
    ("latrec.set_timebase(None)", "TypeError", "takes 2 arguments"),
]


def error_lines(pythonpath=None):
    code = "import latrec\n" + "".join(
        f"try:\n    {call}\nexcept Exception as e:\n    print(type(e).__name__, '|', e)\n"
        f"else:\n    print('no error')\n" for call, _, _ in ERRORS)
    return run_py(code, env={"PYTHONPATH": pythonpath} if pythonpath else None).stdout.splitlines()


def test_bad_arguments_raise():
    lines = error_lines()
    assert len(lines) == len(ERRORS)
    for line, (call, exc, text) in zip(lines, ERRORS):
        kind, _, msg = line.partition(" | ")
        assert kind == exc and text in msg, f"{call}: {line}"


@pytest.mark.usefixtures("enabled_module")
def test_forked_child_opens_its_own_ring(tmp_path):
    code = r"""
import os, sys, latrec
latrec.set_output_dir(sys.argv[1])
assert latrec.open_as("parent")
latrec.stamp(1, 0x21)
pid = os.fork()
if pid == 0:
    latrec.stamp(2, 0x21)          # the parent's ring is not the child's: nowhere
    ok = latrec.open_as("child")
    latrec.stamp(3, 0x22)
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
assert status == 0, status
latrec.stamp(4, 0x21)
print(pid)
"""
    child = int(run_py(code, tmp_path / "r").stdout)
    rings, records = convert(tmp_path / "r", tmp_path / "csv")
    by_ring = {}
    for r in records:
        by_ring.setdefault(r["ring"].split(".")[0], []).append(int(r["seq"]))
    assert by_ring == {"parent": [1, 4], "child": [3]}
    assert [r["pid"] for r in rings if r["name"].startswith("child.")] == [str(child)]


def module_file(pythonpath=None):
    env = {"PYTHONPATH": pythonpath} if pythonpath else None
    return run_py("import latrec; print(latrec.__file__)", env=env).stdout.strip()


def test_no_initial_exec_tls_in_the_module():
    """Python loads the module with dlopen(): the module itself must not
    reference latrec_tls (initial-exec TLS) nor need a static TLS slot."""
    so = module_file()
    relocs = readelf("-rW", so)
    assert not re.search(r"R_X86_64_TPOFF|R_AARCH64_TLS_TPREL", relocs), relocs
    syms = readelf("--dyn-syms", "-W", so)
    assert not re.search(r"\blatrec_tls\b", syms)
    assert not [line for line in syms.splitlines() if " TLS " in line and " UND " in line], syms
    assert "STATIC_TLS" not in readelf("-dW", so)


@pytest.mark.usefixtures("enabled_module")
def test_imports_with_dlopen_from_ctypes_and_a_thread(tmp_path):
    """Imported late (after threads exist), in a thread, as a plain dlopen."""
    code = r"""
import sys, threading
def late():
    import latrec
    latrec.set_output_dir(sys.argv[1])
    assert latrec.open_as("late")
    latrec.stamp(11, 0x21)
t = threading.Thread(target=late); t.start(); t.join()
"""
    run_py(code, tmp_path / "r")
    _, records = convert(tmp_path / "r", tmp_path / "csv")
    assert [(r["ring"].split(".")[0], r["seq"]) for r in records] == [("late", "11")]


@pytest.mark.usefixtures("enabled_module")
def test_pydoc_renders_the_module():
    p = subprocess.run([PYTHON, "-m", "pydoc", "latrec"], capture_output=True, text=True,
                       env=dict(os.environ, PAGER="cat", MANPAGER="cat", TERM="dumb"), timeout=120)
    assert p.returncode == 0, p.stderr
    page = p.stdout
    assert "latrec - Stage stamps from Python into latrec's per-thread rings." in page
    for sig in ["open_as(role=None)", "seq_next()", "stamp(seq, stage, aux=0, aux2=0)",
                "stamp_at(seq, stage, t_ns, aux=0, aux2=0)", "now()", "ctx_set(seq)", "ctx()",
                "set_output_dir(dir)", "set_catalog(name)", "set_timebase(role, timebase)"]:
        assert sig in page, sig
    assert "RECORD_BEGIN = 16" in page and "DROP_SHUTDOWN = 9" in page
    assert "ENABLED = True" in page


@pytest.mark.usefixtures("enabled_module")
def test_a_ring_opened_by_c_code_on_the_thread_gets_the_stamps(tmp_path):
    """The thread's ring is the library's: opened through the C API (here
    ctypes, on liblatrec's out-of-line calls), Python stamps land in it, and
    ctx is one value for both sides."""
    code = r"""
import ctypes, sys, latrec
lib = ctypes.CDLL("liblatrec.so.1")         # the copy the module already loaded
lib.latrec_tls_open_as.restype = ctypes.c_void_p
lib.latrec_ctx_fn.restype = ctypes.c_uint64
lib.latrec_ctx_set_fn.argtypes = [ctypes.c_uint64]
lib.latrec_tstamp_fn.argtypes = [ctypes.c_uint64, ctypes.c_uint8, ctypes.c_uint64, ctypes.c_uint64]
latrec.set_output_dir(sys.argv[1])
assert lib.latrec_tls_open_as(b"cside")
latrec.stamp(1, latrec.RECV, 10, 20)              # no open_as() from Python
lib.latrec_tstamp_fn(2, latrec.DECODE_E3AP_DONE, 30, 40)
lib.latrec_ctx_set_fn(77)
assert latrec.ctx() == 77, latrec.ctx()
assert latrec.open_as("pyside")                   # keeps the thread's ring
latrec.stamp(3, latrec.DELIVER_BEGIN)
latrec.ctx_set(88)
assert lib.latrec_ctx_fn() == 88
"""
    run_py(code, tmp_path / "r")
    rings, records = convert(tmp_path / "r", tmp_path / "csv")
    assert [r["name"].split(".")[0] for r in rings] == ["cside"]
    got = sorted((int(r["seq"]), int(r["stage"]), int(r["aux"]), int(r["aux2"])) for r in records)
    assert got == [(1, 0x25, 10, 20), (2, 0x26, 30, 40), (3, 0x27, 0, 0)]


@pytest.mark.usefixtures("enabled_module")
def test_a_ring_that_cannot_be_opened_is_said_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code = r"""
import sys, latrec
latrec.set_output_dir(sys.argv[1])
print(latrec.open_as("nodir"), latrec.open_as("nodir"))
latrec.stamp(1, latrec.RECV)                 # goes nowhere, no error
latrec.stamp_at(1, latrec.RECV, 5)
latrec.ctx_set(3)
print(latrec.ctx())
"""
    p = run_py(code, blocker / "rings")
    assert p.stdout.split() == ["False", "False", "0"]
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and str(blocker) in lines[0], p.stderr
