"""Files in the agent's folder are hostile: a FIFO, a link to /dev/zero or a device node where
cogit expects `.git/config` or `tsconfig.json` must not hang a hook or fill memory, and a
`git` in the project's `bin/` first on PATH must never run.

The hooks run as real subprocesses in the project folder, under a 1 GiB address-space limit
(a read of /dev/zero would otherwise take the machine's memory) and a timeout (a FIFO would
otherwise block for ever).
"""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
import time

import pytest

from cogit import projectfile
from conftest import wait_for

SID = "5f0c1d2e-files-4a1b-9c8d-7e6f5a4b3c2d"
HOOK_TIMEOUT = 20


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run_hook(c, agent, event, folder, payload, env=None):
    env = dict(env or os.environ, COGIT_HOME=str(c.home))
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "cogit", "hook", agent, event], input=json.dumps(payload).encode(),
                          capture_output=True, env=env, cwd=str(folder), timeout=HOOK_TIMEOUT,
                          preexec_fn=_limit_memory)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    return proc, time.monotonic() - start


def hook_log(c) -> str:
    path = c.home / "runtime" / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def make_hostile(path, kind):
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero-link":
        path.symlink_to("/dev/zero")
    elif kind == "dev-zero-node":  # tests run as root: a character device node of /dev/zero's numbers
        os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 5))
    elif kind == "huge":
        with open(path, "wb") as f:
            f.truncate(64 << 20)  # sparse: 64 MiB of zeros that cost no disk
    else:
        raise AssertionError(kind)


KINDS = ["fifo", "dev-zero-link", "dev-zero-node", "huge"]


# --------------------------------------------------------------------------- the helper


@pytest.mark.parametrize("kind", KINDS + ["folder", "link-to-regular"])
def test_projectfile_refuses_anything_but_a_bounded_regular_file(kind, tmp_path):
    path = tmp_path / "f"
    if kind == "folder":
        path.mkdir()
    elif kind == "link-to-regular":
        (tmp_path / "real").write_text("x")
        path.symlink_to(tmp_path / "real")
    else:
        make_hostile(path, kind)
    start = time.monotonic()
    assert projectfile.read_bytes(str(path), 1 << 20) is None
    assert projectfile.read_text(str(path), 1 << 20) is None
    assert time.monotonic() - start < 2


def test_projectfile_reads_a_regular_file_within_its_bound(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"a\r\nb\xff\n")
    assert projectfile.read_bytes(str(path), 6) == b"a\r\nb\xff\n"
    assert projectfile.read_text(str(path), 6) == "a\nb\ufffd\n"
    assert projectfile.read_bytes(str(path), 5) is None  # one byte over: not read at all
    assert projectfile.read_bytes(str(tmp_path / "missing"), 10) is None


# --------------------------------------------------------------------------- SessionStart


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", [".git/config", ".git (file)", "commondir"])
def test_session_start_in_a_folder_with_a_hostile_git_config(kind, where, initialized, tmp_path):
    c = initialized
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    if where == ".git/config":
        make_hostile(folder / ".git" / "config", kind)
    elif where == ".git (file)":  # a worktree's `.git` is a file naming its git folder
        (folder / ".git").rmdir()
        make_hostile(folder / ".git", kind)
    else:
        gitdir = tmp_path / "gitdir"
        gitdir.mkdir()
        (folder / ".git").rmdir()
        (folder / ".git").write_text(f"gitdir: {gitdir}\n")
        make_hostile(gitdir / "commondir", kind)
    payload = {"session_id": SID, "cwd": str(folder), "hook_event_name": "SessionStart", "source": "startup"}
    proc, took = run_hook(c, "claude", "SessionStart", folder, payload)
    assert took < 10
    assert b"cogit-memory" in proc.stdout  # the memory was injected: the hook did its work
    assert "MemoryError" not in hook_log(c) and "Traceback" not in hook_log(c)
    state = json.loads((c.home / "runtime" / "sessions" / SID / "state.json").read_text())
    assert state["project"]  # the folder is still its project (its name from the folder)


# --------------------------------------------------------------------------- Gemini AfterTool, spatial sense


def _index_built(c, lang):
    for path in (c.home / "runtime" / "cache").glob(f"spatial-*-{lang}.tsv"):
        if json.loads(path.read_text(errors="replace").split("\n", 1)[0]).get("full"):
            return True
    return False


def _ts_repo(tmp_path):
    folder = tmp_path / "web"
    (folder / ".git").mkdir(parents=True)
    (folder / "src").mkdir()
    (folder / "src" / "util.ts").write_text("export const x = 1\n")
    for n in range(7):
        (folder / "src" / f"user{n}.ts").write_text("import { x } from './util'\n")
    return folder


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["tsconfig.json", "src/user1.ts"])
def test_gemini_after_tool_with_a_hostile_file_in_the_repository(kind, name, initialized, tmp_path):
    c = initialized
    folder = _ts_repo(tmp_path)
    make_hostile(folder / name, kind)
    base = {"session_id": SID, "transcript_path": f"{tmp_path}/chat.json", "cwd": str(folder),
            "timestamp": "2026-11-30T10:00:00.000Z"}
    run_hook(c, "gemini", "SessionStart", folder, dict(base, hook_event_name="SessionStart", source="startup"))
    # SessionStart started the import index's builder, detached: it reads the hostile file too
    assert wait_for(lambda: _index_built(c, "js"), timeout=60), hook_log(c)
    payload = dict(base, hook_event_name="AfterTool", tool_name="write_file",
                   tool_input={"file_path": str(folder / "src" / "util.ts"), "content": "export const x = 2\n"},
                   tool_response={"llmContent": "ok", "returnDisplay": "ok"})
    proc, took = run_hook(c, "gemini", "AfterTool", folder, payload)
    assert took < 10
    assert "MemoryError" not in hook_log(c) and "Traceback" not in hook_log(c)
    # the sense still counts the importers it can read (6 or 7 of them: one may be the hostile file)
    out = json.loads(proc.stdout) if proc.stdout else {}
    text = json.dumps(out)
    assert "src/util.ts is imported by" in text, (text, hook_log(c))


# --------------------------------------------------------------------------- the project's own `git`

from gitservers import bare_repo, git, git_env  # noqa: E402,F401  (fixtures)


def hostile_git(folder, marker):
    """A `git` in the project's bin/ that leaves a mark, then behaves like git (so only the
    mark tells that it ran)."""
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout.strip()
    path = folder / "bin" / "git"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho \"$@\" >> '{marker}'\nexec '{real}' \"$@\"\n")
    path.chmod(0o755)
    return path


def _wait(check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("entry", ["absolute", "relative"])
def test_the_trusted_git_is_never_the_projects(entry, tmp_path):
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    (folder / "sub").mkdir()
    fake = hostile_git(folder, tmp_path / "ran")
    first = str(folder / "bin") if entry == "absolute" else "../bin"
    env = dict(os.environ, PATH=first + os.pathsep + os.environ["PATH"])
    code = ("from cogit import programs; from cogit.sync import gitbin; import json; "
            "print(json.dumps([programs.which('git'), gitbin.program(), programs.trusted_path()]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=folder / "sub", env=env, capture_output=True, text=True,
                         check=True).stdout
    which, program, path = json.loads(out)
    assert which and program == which and os.path.realpath(which) != str(fake)
    assert str(folder) not in path and "../bin" not in path.split(os.pathsep)


def test_auto_sync_from_a_project_with_its_own_git_first_on_path(initialized, bare_repo, git_env, tmp_path,
                                                                 monkeypatch):
    """direnv puts the project's bin/ first on PATH; the hooks' detached pull and push run git."""
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", "git")
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("  auto: false", "  auto: true"))
    c.run("commit")
    c.confirm_waiting()  # sync.auto acts: it is this machine's own once confirmed (issue 20 part 1)
    c.run("remote", "add", "origin", bare_repo)
    c.run("push")
    folder = tmp_path / "proj"
    (folder / ".git").mkdir(parents=True)
    marker = tmp_path / "hostile-git-ran"
    hostile_git(folder, marker)
    env = dict(os.environ, PATH=f"{folder / 'bin'}{os.pathsep}{os.environ['PATH']}")
    base = {"session_id": SID, "transcript_path": f"{tmp_path}/t.jsonl", "cwd": str(folder)}
    run_hook(c, "claude", "SessionStart", folder, dict(base, hook_event_name="SessionStart", source="startup"), env)
    assert _wait(lambda: "auto-pull with origin" in _read(c.home / "runtime" / "logs" / "sync.log"))
    run_hook(c, "claude", "UserPromptSubmit", folder, dict(base, hook_event_name="UserPromptSubmit",
             permission_mode="default", prompt="remember this: the project's git never runs"), env)
    run_hook(c, "claude", "SessionEnd", folder, dict(base, hook_event_name="SessionEnd", reason="exit"), env)
    assert _wait(lambda: "the project's git never runs" in git("log", "--all", "-p", cwd=bare_repo.path, env=git_env))
    assert _wait(lambda: "auto-push with origin" in _read(c.home / "runtime" / "logs" / "sync.log"))
    # and the CLI, run by the agent in its folder with the same PATH
    proc = c.run("sync", env={"PATH": env["PATH"]}, cwd=folder)
    assert proc.returncode == 0
    c.run("doctor", env={"PATH": env["PATH"]}, cwd=folder, check=False)
    assert not marker.exists(), marker.read_text()


def _read(path) -> str:
    return path.read_text() if path.exists() else ""
