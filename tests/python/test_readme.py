"""README's Python producer, run as written: its app.py, its catalog and its
two commands, with python3 the interpreter the module was built for and
latrec the command of this build; then the report's legs checked."""
import json
import os
import re
import subprocess

import pytest

from conftest import PYTHON, SOURCE_DIR, need_cli

pytestmark = pytest.mark.usefixtures("enabled_module")


def readme_examples():
    """{file name: text} of every fenced block after an `<!-- example: NAME -->`."""
    with open(os.path.join(SOURCE_DIR, "README.md")) as f:
        text = f.read()
    blocks = re.findall(r"<!-- example: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S)
    return dict(blocks)


def test_readme_python_producer(tmp_path):
    latrec = need_cli()
    ex = readme_examples()
    assert sorted(ex) == ["app.py", "mypipe.catalog", "run.sh"]
    for name, body in ex.items():
        (tmp_path / name).write_text(body)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(PYTHON, bindir / "python3")
    os.symlink(latrec, bindir / "latrec")
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    env.pop("LATREC_OUTPUT_DIR", None)
    p = subprocess.run(["bash", "-euo", "pipefail", "run.sh"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "pipe/request  instances: 3000  complete: 3000" in p.stdout, p.stdout
    assert "# catalog: mypipe (from mypipe.catalog)" in p.stdout, p.stdout

    run = tmp_path / "pyrun"
    assert len([r for r in os.listdir(run / "rings") if r.startswith("worker.")]) == 3
    q = subprocess.run([latrec, "report", "-q", str(run), "--catalog", str(tmp_path / "mypipe.catalog"),
                        "--format", "json"], capture_output=True, text=True, timeout=300, check=True)
    legs = json.loads(q.stdout)["legs"]
    mine = [leg for leg in legs if (leg["component"], leg["leg"]) == ("pipe", "request")]
    assert len(mine) == 1 and mine[0]["instances"] == 3000 and mine[0]["complete"] == 3000
    hops = [h["hop"] for h in mine[0]["hops"]]
    assert hops[:3] == ["REQUEST_IN->PARSED", "PARSED->REPLY_OUT", "total"], hops
    assert all(h["count"] == 3000 for h in mine[0]["hops"][:3])
