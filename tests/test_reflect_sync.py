"""The review inbox and tombstones travel with sync: two machines keep both sides'."""

from __future__ import annotations

import json
import sys

from conftest import Cogit
from gitservers import bare_repo, git_env, requires_git  # noqa: F401  (fixtures)

pytestmark = requires_git


def _reflector(tmp_path, name: str, heuristics: list[str]) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(f"import json, sys\nsys.stdin.read()\nprint(json.dumps({{'insights': [], 'heuristics': {heuristics!r}}}))\n")
    return f"{sys.executable} {path}"


def test_proposals_and_tombstones_survive_a_sync_between_two_machines(tmp_path, bare_repo, git_env):
    a, b = Cogit(tmp_path / "machine-a"), Cogit(tmp_path / "machine-b")
    a.run("init")
    a.run("reflect", "--command", _reflector(tmp_path, "first", ["shared one", "shared two"]))
    a.run("remote", "add", "origin", bare_repo)
    a.run("sync")
    b.run("clone", bare_repo)
    assert {p["text"] for p in b.json("review")} == {"shared one", "shared two"}
    # meanwhile: a rejects one and gets a new proposal; b accepts the other and gets another
    ids_a = {p["text"]: p["id"] for p in a.json("review")}
    a.run("reject", ids_a["shared one"])
    a.run("reflect", "--command", _reflector(tmp_path, "second", ["only on a"]))
    ids_b = {p["text"]: p["id"] for p in b.json("review")}
    b.run("accept", ids_b["shared two"])
    b.run("reflect", "--command", _reflector(tmp_path, "third", ["only on b"]))
    b.run("sync")
    a.run("sync")
    b.run("sync")
    for c in (a, b):
        assert sorted(p["text"] for p in c.json("review")) == ["only on a", "only on b"]
        assert [(t["reason"], t["text"]) for t in c.json("review", "--tombstones")] == [("rejected", "shared one")]
        assert [h["text"] for h in c.json("show", "heuristics")["heuristics"]] == ["shared two"]
        c.assert_healthy()
    assert (a.home / "memory" / "reflections.yaml").read_text() == (b.home / "memory" / "reflections.yaml").read_text()
    # the tombstone works on the machine that did not reject
    b.run("reflect", "--command", _reflector(tmp_path, "fourth", ["Shared one!"]))
    assert "Dropped" in b.git("log", "-1", "--format=%B")
    assert json.loads(json.dumps(b.json("review", "--tombstones")))[0]["dropped"] == 1
