"""Under `latrec record -- python3 app.py`: the module finds the run's ring
directory by itself, the rings land in the run directory, and `latrec report`
shows the Python thread's legs with the hop times the producer planted."""
import json
import os
import subprocess

import pytest

from conftest import PYTHON, need_cli

pytestmark = pytest.mark.usefixtures("enabled_module")

N = 20

APP = r"""
import threading, latrec
def deliver(role):
    latrec.open_as(role)
    t0 = latrec.now()
    for i in range(%d):
        s = latrec.seq_next()
        # planted hop: exactly (i + 1) us from DELIVER_BEGIN to DELIVER_DONE
        latrec.stamp_at(s, latrec.DELIVER_BEGIN, t0 + i * 100000)
        latrec.stamp_at(s, latrec.DELIVER_DONE, t0 + i * 100000 + (i + 1) * 1000)
threads = [threading.Thread(target=deliver, args=(r,)) for r in ("pyrec", "pyrec2")]
for t in threads: t.start()
for t in threads: t.join()
""" % N


def python_first_on_path(tmp_path):
    """PATH whose python3 is the interpreter the module was built for."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(PYTHON, bindir / "python3")
    return f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}"


def test_import_under_latrec_record(tmp_path):
    latrec = need_cli()
    app = tmp_path / "app.py"
    app.write_text(APP)
    run = tmp_path / "run1"
    env = dict(os.environ, PATH=python_first_on_path(tmp_path))
    env.pop("LATREC_OUTPUT_DIR", None)
    p = subprocess.run([latrec, "record", "-q", "-o", str(run), "--", "python3", str(app)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rings = sorted(os.listdir(run / "rings"))
    assert [r.split(".")[0] for r in rings] == ["pyrec", "pyrec2"], rings

    p = subprocess.run([latrec, "report", "-q", str(run), "--format", "json", "--unit", "ns"],
                       capture_output=True, text=True, timeout=300, check=True)
    legs = {(leg["component"], leg["leg"]): leg for leg in json.loads(p.stdout)["legs"]}
    for component in ("pyrec", "pyrec2"):
        leg = legs[(component, "deliver")]
        assert leg["instances"] == N and leg["complete"] == N
        hop = {h["hop"]: h for h in leg["hops"]}["DELIVER_BEGIN->DELIVER_DONE"]
        assert hop["count"] == N
        assert hop["min_ns"] == 1000 and hop["max_ns"] == N * 1000
        assert hop["mean_ns"] == sum((i + 1) * 1000 for i in range(N)) / N

    text = subprocess.run([latrec, "report", "-q", str(run)], capture_output=True, text=True,
                          timeout=300, check=True).stdout
    assert f"pyrec/deliver  instances: {N}  complete: {N}" in text
