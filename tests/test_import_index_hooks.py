"""The Spatial sense's import index through the real hooks (issue 25 part 2): built by a
detached builder that SessionStart (or the first edit) starts, only read by the Edit hook,
which says nothing while it does not exist yet and never scans the project itself."""

from __future__ import annotations

import json
import os
import subprocess
import time

from conftest import wait_for

SID = "5a1d2c3e-4b7e-4f7a-9d0a-2f1c3e5b7a91"


def _project(root, importers=6):
    """A git repository with an origin remote: lib.py imported by `importers` modules, and a
    `cogit/` package of its own that writes a file if anything ever imports it."""
    (root / "cogit").mkdir(parents=True)
    (root / "cogit" / "__init__.py").write_text(
        f"open({str(root / 'IMPORTED')!r}, 'w').write('the project code ran')\n")
    (root / "lib.py").write_text("X = 1\n")
    for n in range(importers):
        (root / f"u{n}.py").write_text("import lib\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", "git@github.com:acme/lib.git"], check=True, env=env)
    return root


def _hook(c, event, body, cwd):
    from cogit.launch import hook_argv  # the command `cogit install claude` writes: nothing from cwd

    proc = subprocess.run(hook_argv("claude", event), input=json.dumps(body).encode(),
                          capture_output=True, env=dict(os.environ, COGIT_HOME=str(c.home)), cwd=str(cwd), timeout=60)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    return proc.stdout.decode()


def _edit(c, project, n, sid=SID):
    path = str(project / "lib.py")
    return _hook(c, "PostToolUse", {
        "session_id": sid, "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": "X = 1", "new_string": "X = 2"}, "tool_use_id": f"toolu_e{n}",
        "tool_response": {"filePath": path, "oldString": "X = 1", "newString": "X = 2"}}, project)


def _index(c):
    return sorted(p.name for p in (c.home / "runtime" / "cache").glob("spatial-*-py.tsv"))


def _built(c, project):
    """The builder's last step is done: Python's reverse index is written."""
    from cogit.senses import import_index

    return os.path.exists(import_index.rev_path(str(c.home / "runtime" / "cache"), str(project)))


def test_session_start_builds_the_index_detached_and_the_edit_reads_it(initialized, tmp_path):
    c = initialized
    project = _project(tmp_path / "lib")
    _hook(c, "SessionStart", {"session_id": SID, "cwd": str(project), "hook_event_name": "SessionStart",
                              "source": "startup"}, project)
    assert wait_for(lambda: _built(c, project), timeout=60), list((c.home / "runtime" / "logs").glob("*"))
    out = _edit(c, project, 1)
    assert "lib.py is imported by 6 files" in out, out
    # Read, not scanned: a new importer written after the build is not counted by the hook.
    (project / "u9.py").write_text("import lib\n")
    out = _edit(c, project, 2, sid=SID + "x")
    assert "lib.py is imported by 6 files" in out, out
    # The builder ran from COGIT_HOME with the installed cogit: the project's cogit/ never ran.
    assert not (project / "IMPORTED").exists()
    hooks_log = c.home / "runtime" / "logs" / "hooks.log"
    assert not hooks_log.exists() or "Traceback" not in hooks_log.read_text()


def test_the_first_edit_without_an_index_says_nothing_and_starts_the_builder(initialized, tmp_path):
    c = initialized
    project = _project(tmp_path / "lib")
    started = time.monotonic()
    assert _edit(c, project, 1) == ""  # hooks installed mid-session: no SessionStart, no index
    assert time.monotonic() - started < 10
    assert wait_for(lambda: _built(c, project), timeout=60)
    out = _edit(c, project, 2, sid=SID + "y")
    assert "lib.py is imported by 6 files" in out, out
    assert not (project / "IMPORTED").exists()


def test_the_builder_is_started_once_while_it_is_fresh(initialized, tmp_path):
    """Two edits before the index exists start one build, not two (the marker's mtime)."""
    from cogit.senses import import_index

    c = initialized
    project = _project(tmp_path / "lib")
    cache = str(c.home / "runtime" / "cache")
    import_index.mark_started(cache, str(project))  # a build was just started (by another hook)
    assert _edit(c, project, 1) == ""
    time.sleep(1.0)
    assert _index(c) == []  # nothing started: the fresh marker held it back
    assert not import_index.wants_build(cache, str(project))
    assert import_index.wants_build(cache, str(project), now=time.time() + import_index.REFRESH_S + 1)


def test_the_builder_refuses_what_is_not_a_repository_top_level(initialized, tmp_path):
    c = initialized
    project = _project(tmp_path / "lib")
    (project / "sub").mkdir()
    for root in ("relative/path", str(project / "sub"), str(tmp_path / "missing")):
        proc = c.run("hook", "build-index", root, check=False)
        assert proc.returncode == 0 and proc.out == ""
    assert _index(c) == []
    assert "not the top level of a git repository" in (c.home / "runtime" / "logs" / "hooks.log").read_text()
