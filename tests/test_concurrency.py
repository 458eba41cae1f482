"""Concurrent writers are the normal case: nothing acknowledged is ever lost."""

from __future__ import annotations

import subprocess
import sys

WRITER = """
import sys
from cogit.paths import Home
from cogit.store import memory
from cogit.store.provenance import Provenance
home = Home(sys.argv[1]); who = sys.argv[2]
for n in range(int(sys.argv[3])):
    r = memory.write(home, Provenance(event="learning.add", source="cli", agent=who), memory.add_item("learnings", f"{who} lesson {n}"))
    assert r is not None
    print(r.sha, flush=True)
"""


def test_parallel_writers_lose_nothing(initialized):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50", "learnings: 500"))
    c.run("commit")
    writers, per = 6, 8
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(c.home), f"w{i}", str(per)], stdout=subprocess.PIPE, text=True)
             for i in range(writers)]
    acknowledged = []
    for p in procs:
        out, _ = p.communicate(timeout=120)
        assert p.returncode == 0
        acknowledged += out.split()
    assert len(acknowledged) == writers * per
    history = set(c.git("rev-list", "HEAD").split())
    assert set(acknowledged) <= history
    texts = {i["text"] for i in c.json("show", "learnings")["learnings"]}
    assert texts == {f"w{i} lesson {n}" for i in range(writers) for n in range(per)}
    # History is linear: every commit has the one before it as parent.
    assert c.git("rev-list", "--merges", "HEAD") == ""
    c.assert_healthy()
