"""A damaged memory repository (issue 20 part 8): a pack whose `.idx` is gone, a branch or
HEAD at a commit that is not there. Every command says so (exit 1, never a crash) and sends
the person to `cogit doctor --fix`, which repairs it without losing a committed memory; the
hooks stay silent and exit 0, the cause in a log. Real repositories broken on disk, the real
CLI and the real `git` binary."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import wait_for

# Commands that read or write the repository itself. (A plain `show`, or a plain `rules` in a
# memory without rules, answers from the snapshot its branch head names, as a cold read does:
# right, and without reading the pack; the next command that reads the repository says it.)
COMMANDS = [("status",), ("log",), ("add", "learning", "written to a broken repository"), ("rules", "--project", "global"), ("diff", "--json")]


def _learnings(c) -> list[str]:
    return sorted(i["text"] for i in c.json("show", "learnings")["learnings"])


def _assert_clear_error(c, what: str) -> None:
    for args in COMMANDS:
        proc = c.run(*args, check=False)
        assert proc.returncode == 1, (args, proc.returncode, proc.err)
        assert "the memory repository is damaged" in proc.err and what in proc.err, (args, proc.err)
        assert "cogit doctor --fix" in proc.err and "crashed" not in proc.err and "Traceback" not in proc.err, proc.err


def _assert_hooks_silent(c) -> None:
    """A hook against the broken home: exit 0, nothing on stdout; the session's fold at its
    end (detached `cogit finalize`) logs the clear error, not a traceback."""
    tool = {"session_id": "s-broken", "hook_event_name": "PostToolUse", "tool_name": "Bash", "cwd": str(c.home.parent),
            "tool_input": {"command": "false"}, "tool_response": {"stdout": "", "stderr": "boom", "exit_code": 1}}
    proc = c.hook("PostToolUse", tool)
    assert proc.returncode == 0 and proc.out == "", (proc.out, proc.err)
    end = {"session_id": "s-broken", "hook_event_name": "SessionEnd", "cwd": str(c.home.parent)}
    proc = c.hook("SessionEnd", end)
    assert proc.returncode == 0 and proc.out == "", (proc.out, proc.err)
    log = c.home / "runtime" / "logs" / "finalize.log"
    assert wait_for(lambda: log.exists() and "the memory repository is damaged" in log.read_text(), 30)
    assert "Traceback" not in log.read_text()


def _doctor_fix(c) -> str:
    proc = c.run("doctor", "--fix", "--offline", check=False)
    assert "fixed repair:" in proc.out, proc.out
    assert "FAIL  repair" not in proc.out and "FAIL  fsck" not in proc.out, proc.out
    return proc.out


def test_a_pack_without_its_index(initialized):
    c = initialized
    for i in range(3):
        c.run("add", "learning", f"packed lesson {i}")
    c.git("gc", "-q")
    pack = c.home / "memory" / ".git" / "objects" / "pack"
    idx = [p for p in pack.iterdir() if p.suffix == ".idx"]
    assert len(idx) == 1
    idx[0].unlink()
    _assert_clear_error(c, "lost their index")
    env = dict(os.environ, COGIT_HOME=str(c.home.parent / "elsewhere"))  # --home wins over it
    other = subprocess.run([sys.executable, "-m", "cogit", "--home", str(c.home), "status"], capture_output=True,
                           text=True, env=env, timeout=60)
    assert other.returncode == 1 and "lost their index" in other.stderr, other.stderr
    proc = c.run("doctor", "--offline", check=False)
    assert proc.returncode == 1 and "FAIL  repair" in proc.out and "lost their index" in proc.out, proc.out
    assert "cogit doctor --fix" in proc.out
    _assert_hooks_silent(c)
    out = _doctor_fix(c)
    assert f"rebuilt the index of {idx[0].with_suffix('.pack').name}" in out, out
    assert idx[0].exists()
    assert _learnings(c) == [f"packed lesson {i}" for i in range(3)]
    c.run("add", "learning", "after the repair")
    c.assert_healthy()
    assert c.run("doctor", "--offline", check=False).out.startswith("ok    repair")


def test_a_branch_at_a_missing_commit_goes_back_and_keeps_what_the_working_tree_holds(initialized):
    """The head commit's object is lost (a crash of the machine after the ref was written):
    main goes back to the newest whole commit its reflog names, and the lost commit's files,
    still in the working tree, wait as a hand edit that `cogit commit` keeps."""
    c = initialized
    c.run("add", "learning", "first lesson")
    before = c.git("rev-parse", "main").strip()
    c.run("add", "learning", "the lesson whose commit is lost")
    lost = c.git("rev-parse", "main").strip()
    (c.home / "memory" / ".git" / "objects" / lost[:2] / lost[2:]).unlink()
    _assert_clear_error(c, f"main points at commit {lost[:12]}, which is not in the repository")
    _assert_hooks_silent(c)
    out = _doctor_fix(c)
    assert f"missing commit {lost[:12]}; it is back at {before[:12]}" in out and "found in its reflog" in out, out
    assert "wait as a hand edit" in out, out
    assert c.git("merge-base", "--is-ancestor", before, "main") == ""  # from there (a fold may have committed since)
    c.git("fsck", "--strict")  # the reflog no longer names the missing commit
    c.run("commit", check=False)  # (the sessions check's fold may have committed it already)
    assert _learnings(c) == ["first lesson", "the lesson whose commit is lost"]
    c.assert_healthy()


def test_a_branch_at_a_made_up_commit_without_reflog_uses_the_history_index(initialized):
    c = initialized
    for i in range(2):
        c.run("add", "learning", f"indexed lesson {i}")
    head = c.git("rev-parse", "main").strip()
    c.run("log")  # brings the history index up to date (as every `log`, `why` and fold does)
    git = c.home / "memory" / ".git"
    (git / "logs" / "refs" / "heads" / "main").unlink()
    (git / "logs" / "HEAD").unlink(missing_ok=True)
    (git / "refs" / "heads" / "main").write_text("1234567890" * 4 + "\n")
    _assert_clear_error(c, "main points at commit 123456789012")
    out = _doctor_fix(c)
    assert f"it is back at {head[:12]}" in out and "found in the history index" in out, out
    assert _learnings(c) == ["indexed lesson 0", "indexed lesson 1"]
    c.assert_healthy()


def test_no_whole_commit_known_says_what_to_do_and_changes_nothing(initialized):
    c = initialized
    c.run("add", "learning", "a lesson")
    git = c.home / "memory" / ".git"
    (git / "logs" / "refs" / "heads" / "main").unlink()
    (git / "logs" / "HEAD").unlink(missing_ok=True)
    import shutil

    shutil.rmtree(c.home / "runtime" / "cache", ignore_errors=True)
    (git / "refs" / "heads" / "main").write_text("1234567890" * 4 + "\n")
    proc = c.run("doctor", "--fix", "--offline", check=False)
    assert proc.returncode == 1 and "FAIL  repair: main points at the missing commit 123456789012" in proc.out, proc.out
    assert "no whole commit of it is known" in proc.out and "cogit clone URL" in proc.out and "fsck --lost-found" in proc.out
    assert (git / "refs" / "heads" / "main").read_text().strip() == "1234567890" * 4


def test_a_head_at_a_missing_commit_names_main_again(initialized):
    """HEAD detached at a missing commit: cogit still writes main, but the working tree stays
    behind; --fix points HEAD at main, brings the working tree to main's files and keeps a
    copy of what differed."""
    c = initialized
    c.run("add", "learning", "before HEAD broke")
    (c.home / "memory" / ".git" / "HEAD").write_text("1234567890" * 4 + "\n")
    c.run("add", "learning", "while HEAD was broken")
    proc = c.run("doctor", "--offline", check=False)
    assert proc.returncode == 1 and "HEAD points at commit 123456789012" in proc.out, proc.out
    out = _doctor_fix(c)
    assert "HEAD named the missing commit 123456789012; it names the branch main again" in out, out
    assert (c.home / "memory" / ".git" / "HEAD").read_text().strip() == "ref: refs/heads/main"
    assert _learnings(c) == ["before HEAD broke", "while HEAD was broken"]
    c.run("add", "learning", "after the repair")
    assert _learnings(c) == ["after the repair", "before HEAD broke", "while HEAD was broken"]
    c.assert_healthy()


def test_a_project_branch_holding_no_commit_id_goes_back_by_its_reflog(initialized):
    c = initialized
    c.run("add", "learning", "global lesson")
    for i in range(2):
        c.run("add", "learning", f"project lesson {i}", "--project", "proj")
    head = c.git("rev-parse", "project/proj").strip()
    (c.home / "memory" / ".git" / "refs" / "heads" / "project" / "proj").write_text("not a commit id\n")
    proc = c.run("log", check=False)
    assert proc.returncode == 1 and "project/proj holds 'not a commit id', which is not a commit id" in proc.err, proc.err
    out = _doctor_fix(c)
    assert f"project/proj pointed at 'not a commit id' (not a commit id); it is back at {head[:12]}" in out, out
    assert "missing commit itself" not in out
    assert c.git("rev-parse", "main").strip() != head  # main was never touched
    assert {e["summary"].split(": ", 1)[-1] for e in c.json("log")} >= {"global lesson", "project lesson 0",
                                                                         "project lesson 1"}
    c.assert_healthy()


def test_a_branch_goes_back_to_the_remote_tracking_ref_when_nothing_else_knows_it(initialized, tmp_path):
    c = initialized
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    c.run("remote", "add", "origin", str(remote))
    c.run("add", "learning", "pushed lesson")
    c.run("push")
    pushed = c.git("rev-parse", "main").strip()
    assert c.git("rev-parse", "refs/remotes/origin/main").strip() == pushed
    git = c.home / "memory" / ".git"
    (git / "logs" / "refs" / "heads" / "main").unlink()
    import shutil

    shutil.rmtree(c.home / "runtime" / "cache", ignore_errors=True)
    (git / "refs" / "heads" / "main").write_text("1234567890" * 4 + "\n")
    out = _doctor_fix(c)
    assert f"it is back at {pushed[:12]}" in out and "found in refs/remotes/origin/main" in out, out
    assert _learnings(c) == ["pushed lesson"]
    c.assert_healthy()


def test_a_torn_pack_index_is_rebuilt_too(initialized):
    c = initialized
    for i in range(3):
        c.run("add", "learning", f"packed lesson {i}")
    c.git("gc", "-q")
    idx = next(p for p in (c.home / "memory" / ".git" / "objects" / "pack").iterdir() if p.suffix == ".idx")
    idx.chmod(0o644)
    with open(idx, "r+b") as f:
        f.truncate(idx.stat().st_size // 2)
    _assert_clear_error(c, "the index of 1 pack(s) is damaged")
    out = _doctor_fix(c)
    assert f"rebuilt the index of {idx.with_suffix('.pack').name}" in out, out
    assert _learnings(c) == [f"packed lesson {i}" for i in range(3)]
    c.assert_healthy()
