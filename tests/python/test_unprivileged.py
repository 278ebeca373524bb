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


@pytest.fixture
def nobody_dir():
    if os.geteuid() != 0:
        pytest.skip("not root: the tests already run unprivileged")
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is not installed")
    module = run_py("import latrec; print(latrec.__file__)").stdout.strip()
    for path, test in ((module, "-r"), (PYTHON, "-x"), (need_cli(), "-x")):
        if subprocess.run(NOBODY + ["test", test, path]).returncode != 0:
            pytest.skip(f"nobody cannot reach {path} (a checkout others cannot enter)")
    d = tempfile.mkdtemp(prefix="latrec-py-nobody-")
    os.chown(d, 65534, 65534)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_record_as_nobody(nobody_dir):
    latrec = need_cli()
    app = os.path.join(nobody_dir, "app.py")
    with open(app, "w") as f:
        f.write(APP)
    run = os.path.join(nobody_dir, "run")
    env = {k: v for k, v in os.environ.items() if k != "LATREC_OUTPUT_DIR"}
    p = subprocess.run(NOBODY + [latrec, "record", "-q", "-o", run, "--", PYTHON, app],
                       env=env, capture_output=True, text=True, timeout=300, cwd=nobody_dir)
    assert p.returncode == 0, p.stderr
    rings = os.listdir(os.path.join(run, "rings"))
    assert sorted(r.split(".")[0] for r in rings) == ["np1", "np2", "np3"]
    assert all(os.stat(os.path.join(run, "rings", r)).st_uid == 65534 for r in rings)
    q = subprocess.run([latrec, "report", "-q", run, "--format", "json", "--unit", "ns"],
                       capture_output=True, text=True, timeout=300, check=True)
    legs = {(leg["component"], leg["leg"]): leg for leg in json.loads(q.stdout)["legs"]}
    for c in ("np1", "np2", "np3"):
        hop = legs[(c, "inbound")]["hops"][0]
        assert hop["hop"] == "RECV->DECODE_E3AP_DONE"
        assert hop["count"] == 10 and hop["min_ns"] == 2000 and hop["max_ns"] == 2000
