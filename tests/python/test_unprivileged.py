"""As a normal user (nobody, via setpriv, when the tests run as root): the
module imports, the producer's threads write their rings, and a `latrec
record` run of it reads back with the legs it planted."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import PYTHON, need_cli, run_py

pytestmark = pytest.mark.usefixtures("enabled_module")

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

APP = r"""
import threading, latrec
def work(role):
    assert latrec.open_as(role)
    t0 = latrec.now()
    for i in range(10):
        s = latrec.seq_next()
        latrec.stamp_at(s, latrec.RECV, t0 + i * 10000)
        latrec.stamp_at(s, latrec.DECODE_E3AP_DONE, t0 + i * 10000 + 2000)
ts = [threading.Thread(target=work, args=(r,)) for r in ("np1", "np2", "np3")]
for t in ts: t.start()
for t in ts: t.join()
"""


def reachable(path, test):
    return subprocess.run(NOBODY + ["test", test, path]).returncode == 0


def project_libs(*programs):
    """The project's own shared libraries the programs load (liblatrec):
    what ldd resolves outside /lib and /usr."""
    libs = set()
    for prog in programs:
        out = subprocess.run(["ldd", prog], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/") and \
                    not parts[2].startswith(("/lib", "/usr/lib")):
                libs.add(parts[2])
    return sorted(libs)


@pytest.fixture
def nobody_run():
    """(directory nobody owns, the latrec command, the environment) for a
    run as nobody. In a checkout closed to other users (cloned under /root,
    or into a 0700 mktemp -d) the module, the command and liblatrec are
    copied where nobody reaches them, and PYTHONPATH and LD_LIBRARY_PATH
    name the copies (the build's RUNPATH gives way to LD_LIBRARY_PATH)."""
    if os.geteuid() != 0:
        pytest.skip("not root: the tests already run unprivileged")
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is not installed")
    module = run_py("import latrec; print(latrec.__file__)").stdout.strip()
    latrec = need_cli()
    if not reachable(PYTHON, "-x"):
        pytest.skip(f"nobody cannot run {PYTHON}")
    d = tempfile.mkdtemp(prefix="latrec-py-nobody-")
    os.chown(d, 65534, 65534)
    env = {k: v for k, v in os.environ.items() if k != "LATREC_OUTPUT_DIR"}
    if not reachable(module, "-r") or not reachable(latrec, "-x"):
        copies = os.path.join(d, "bin")
        os.mkdir(copies)
        os.chmod(copies, 0o755)
        for f in [module, latrec] + project_libs(module, latrec):
            dest = os.path.join(copies, os.path.basename(f))
            shutil.copy(f, dest)
            os.chmod(dest, 0o755)
        env["PYTHONPATH"] = copies
        env["LD_LIBRARY_PATH"] = copies + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        latrec = os.path.join(copies, "latrec")
        assert reachable(latrec, "-x"), f"nobody cannot run the copy {latrec}"
    yield d, latrec, env
    shutil.rmtree(d, ignore_errors=True)


def test_record_as_nobody(nobody_run):
    nobody_dir, latrec, env = nobody_run
    app = os.path.join(nobody_dir, "app.py")
    with open(app, "w") as f:
        f.write(APP)
    run = os.path.join(nobody_dir, "run")
    p = subprocess.run(NOBODY + [latrec, "record", "-q", "-o", run, "--", PYTHON, app],
                       env=env, capture_output=True, text=True, timeout=300, cwd=nobody_dir)
    assert p.returncode == 0, p.stderr
    rings = os.listdir(os.path.join(run, "rings"))
    assert sorted(r.split(".")[0] for r in rings) == ["np1", "np2", "np3"]
    assert all(os.stat(os.path.join(run, "rings", r)).st_uid == 65534 for r in rings)
    q = subprocess.run([latrec, "report", "-q", run, "--format", "json", "--unit", "ns"],
                       env=env, capture_output=True, text=True, timeout=300, check=True)
    legs = {(leg["component"], leg["leg"]): leg for leg in json.loads(q.stdout)["legs"]}
    for c in ("np1", "np2", "np3"):
        hop = legs[(c, "inbound")]["hops"][0]
        assert hop["hop"] == "RECV->DECODE_E3AP_DONE"
        assert hop["count"] == 10 and hop["min_ns"] == 2000 and hop["max_ns"] == 2000
