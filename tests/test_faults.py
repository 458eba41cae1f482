"""Faults are clean: what a killed fetch or a killed `cogit edit` leaves is cleaned by the next
writer (edit files are 0600 and never in /tmp), and a live git working in memory keeps its locks."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time

from conftest import wait_for


def _editor(tmp_path, code: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(code)
    return f"{sys.executable} {script}"


def test_a_killed_edit_leaves_no_memory_text_behind(initialized, tmp_path):
    c = initialized
    c.run("add", "learning", "private lesson text")
    ready = tmp_path / "editing"
    editor = _editor(tmp_path, f"import sys, time, os, stat\n"
                               f"open({str(ready)!r}, 'w').write(sys.argv[1] + ' ' + oct(os.stat(sys.argv[1]).st_mode & 0o777))\n"
                               f"time.sleep(60)\n")
    env = dict(os.environ, COGIT_HOME=str(c.home), EDITOR=editor, VISUAL="")
    proc = subprocess.Popen([sys.executable, "-m", "cogit", "edit", "learnings"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_for(ready.exists, 30)
    time.sleep(0.2)
    path, mode = ready.read_text().split()
    assert mode == "0o600" and "private lesson text" in open(path).read()
    assert not path.startswith("/tmp/cogit-")  # in COGIT_HOME, not a shared folder
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert os.path.exists(path)
    c.run("add", "learning", "the next writer")
    assert not os.path.exists(path)
    assert not list((c.home / "runtime").rglob("*.yaml")) or all(
        "private lesson text" not in p.read_text() for p in (c.home / "runtime").rglob("*.yaml"))


def test_a_killed_edit_the_person_changed_is_kept_not_lost(initialized, tmp_path):
    c = initialized
    ready = tmp_path / "editing"
    editor = _editor(tmp_path, f"import sys, time\nopen(sys.argv[1], 'a').write('# typed by me\\n')\n"
                               f"open({str(ready)!r}, 'w').write(sys.argv[1])\ntime.sleep(60)\n")
    env = dict(os.environ, COGIT_HOME=str(c.home), EDITOR=editor, VISUAL="")
    proc = subprocess.Popen([sys.executable, "-m", "cogit", "edit", "focus"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_for(ready.exists, 30)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    c.run("add", "learning", "the next writer")
    kept = list((c.home / "runtime" / "rejected").glob("edit-focus.*"))
    assert len(kept) == 1 and "# typed by me" in kept[0].read_text()
    assert stat.S_IMODE(kept[0].stat().st_mode) == 0o600


def test_a_refused_edit_is_kept_0600(initialized, tmp_path):
    c = initialized
    editor = _editor(tmp_path, "import sys\nopen(sys.argv[1],'a').write('bogus: 1\\n')\n")
    proc = c.run("edit", "focus", env={"EDITOR": editor, "VISUAL": ""}, check=False)
    assert proc.returncode == 1
    kept = proc.err.split("Your edit is kept in ")[1].split(";")[0]
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600 and "bogus: 1" in open(kept).read()
    c.run("add", "learning", "the next writer")
    assert os.path.exists(kept)  # a text the person is told about stays


def test_a_killed_fetch_leaves_no_temporary_pack(initialized):
    c = initialized
    pack = c.home / "memory" / ".git" / "objects" / "pack"
    pack.mkdir(parents=True, exist_ok=True)
    for name in ("tmp_pack_AbC123", "tmp_idx_AbC123", "tmp_pack_cogit_x1"):
        (pack / name).write_bytes(b"PACK" + b"\0" * 4096)
    (c.home / "memory" / ".git" / "objects" / "incoming-xyz").write_bytes(b"x")
    c.run("add", "learning", "the next writer")
    assert not [p for p in pack.iterdir() if p.name.startswith("tmp_")]
    assert not (c.home / "memory" / ".git" / "objects" / "incoming-xyz").exists()
    c.assert_healthy()


def test_temporary_packs_of_a_running_fetch_stay(initialized):
    """A fetch in flight holds runtime/fetch.lock: its temporary pack is not a leftover."""
    c = initialized
    pack = c.home / "memory" / ".git" / "objects" / "pack"
    pack.mkdir(parents=True, exist_ok=True)
    (pack / "tmp_pack_live").write_bytes(b"PACK")
    holder = subprocess.Popen([sys.executable, "-c",
                               "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
                               "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
                               str(c.home / "runtime" / "fetch.lock")], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        c.run("add", "learning", "while a fetch runs")
        assert (pack / "tmp_pack_live").exists()
    finally:
        holder.kill()
        holder.wait()


def test_a_live_git_keeps_its_index_lock(initialized):
    """A person's `git` in the memory folder holds index.lock (here: a git waiting on its
    editor during `git commit`, so the lock is live): cogit does not remove it as stale."""
    c = initialized
    memory = c.home / "memory"
    lock = memory / ".git" / "index.lock"
    # A real git process working in memory: `git hash-object --stdin` waits on its input.
    git = subprocess.Popen(["git", "hash-object", "--stdin"], cwd=memory, stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL)
    lock.write_bytes(b"")
    try:
        time.sleep(0.3)
        c.run("add", "learning", "while git works", check=False)
        assert lock.exists()
    finally:
        git.stdin.close()
        git.wait()
    lock.unlink(missing_ok=True)


def test_a_stale_index_lock_without_git_is_still_cleared(initialized):
    c = initialized
    lock = c.home / "memory" / ".git" / "index.lock"
    lock.write_bytes(b"")
    c.run("add", "learning", "after a killed writer")
    assert not lock.exists()


# --------------------------------------------------------------------------- a full disk, a read-only home
#
# For real: the home lives on a small tmpfs mounted for the test (tests run as root here, and
# `mount -t tmpfs` works in this sandbox; chmod would not do, since root writes anyway). The
# disk is filled with a file, or the tmpfs remounted read-only.

import contextlib  # noqa: E402

from conftest import Cogit  # noqa: E402


@contextlib.contextmanager
def small_disk(path, size="24m"):
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _learnings(c) -> list[str]:
    return [i["text"] for i in c.json("show", "learnings")["learnings"]]


def test_a_full_disk_is_exit_1_with_what_to_do_and_nothing_lost(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        c = Cogit(disk / "home")
        c.run("init")
        c.run("add", "learning", "kept before the disk filled")
        fill = disk / "fill"
        subprocess.run(["dd", "if=/dev/zero", f"of={fill}", "bs=1M", "count=64"], capture_output=True)
        proc = c.run("add", "learning", "written to a full disk", check=False)
        assert proc.returncode == 1, proc.err
        assert "no space is left on the disk" in proc.err and "nothing was changed" in proc.err, proc.err
        assert "Free space" in proc.err and "Traceback" not in proc.err and "crashed" not in proc.err
        fill.unlink()
        assert _learnings(c) == ["kept before the disk filled"]
        c.run("add", "learning", "after space came back")
        assert sorted(_learnings(c)) == ["after space came back", "kept before the disk filled"]
        c.assert_healthy()


def test_a_read_only_home_is_exit_1_with_what_to_do(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        c = Cogit(disk / "home")
        c.run("init")
        c.run("add", "learning", "kept on a read-only home")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        try:
            proc = c.run("add", "learning", "written to a read-only home", check=False)
            assert proc.returncode == 1, proc.err
            assert "read-only" in proc.err and "nothing was changed" in proc.err, proc.err
            assert "Traceback" not in proc.err and "crashed" not in proc.err
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        assert _learnings(c) == ["kept on a read-only home"]
        c.assert_healthy()
