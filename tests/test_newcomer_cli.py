"""A newcomer's first hour: `cogit -V`, shell completion, `revert` and `edit` in a project's
folder without `--project`, and progress on long work."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import git


def run_in(c, cwd, *args, env=None):
    return subprocess.run([sys.executable, "-m", "cogit", *args], cwd=str(cwd), capture_output=True, text=True,
                          env=dict(os.environ, COGIT_HOME=str(c.home), **(env or {})), timeout=60)


def test_version_short_and_long(initialized):
    from cogit import __version__

    for flag in ("-V", "--version"):
        assert initialized.run(flag).out.strip() == f"cogit, version {__version__}"


def test_shell_completion_as_the_docs_give_it(tmp_path):
    """`eval "$(_COGIT_COMPLETE=bash_source cogit)"` (click's): the script, then completions."""
    cogit = [sys.executable, "-m", "cogit"]
    script = subprocess.run(cogit, env=dict(os.environ, _COGIT_COMPLETE="bash_source"), capture_output=True, text=True)
    assert script.returncode == 0 and "_cogit_completion()" in script.stdout and "complete -o" in script.stdout
    env = dict(os.environ, _COGIT_COMPLETE="bash_complete", COMP_WORDS="cogit uninst", COMP_CWORD="1")
    assert subprocess.run(cogit, env=env, capture_output=True, text=True).stdout.split() == ["plain,uninstall"]
    env.update(COMP_WORDS="cogit install g", COMP_CWORD="2")
    assert subprocess.run(cogit, env=env, capture_output=True, text=True).stdout.split() == ["plain,gemini"]


def project_folder(c, tmp_path):
    folder = tmp_path / "work" / "app"
    folder.mkdir(parents=True)
    git(folder, "init", "-q")
    c.run("add", "learning", "app builds need make bootstrap", "--project", str(folder))
    return folder


def test_revert_in_a_project_folder_finds_the_project_as_show_does(initialized, tmp_path):
    c = initialized
    folder = project_folder(c, tmp_path)
    (item,) = c.json("show", "learnings", "--project", str(folder))["learnings"]
    sha = c.json("log", "--project", str(folder))[0]["sha"]
    proc = run_in(c, folder / "", "revert", sha)
    assert proc.returncode == 0, proc.stderr
    assert "in project" in proc.stdout and c.json("show", "learnings", "--project", str(folder))["learnings"] == []
    # From a folder of no project the commit is still found by its project, with the flag to give.
    proc = run_in(c, tmp_path, "revert", sha)
    assert proc.returncode != 0 and "--project" in proc.stderr


def test_edit_in_a_project_folder_edits_the_projects_section(initialized, tmp_path):
    c = initialized
    folder = project_folder(c, tmp_path)
    editor = tmp_path / "ed.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/make bootstrap/make bootstrap first/' \"$1\"\n")
    editor.chmod(0o755)
    proc = run_in(c, folder, "edit", "learnings", env={"VISUAL": "", "EDITOR": str(editor)})
    assert proc.returncode == 0, proc.stderr
    assert "Editing learnings of project" in proc.stderr and "--project global" in proc.stderr
    assert [i["text"] for i in c.json("show", "learnings", "--project", str(folder))["learnings"]] == [
        "app builds need make bootstrap first"]
    assert c.json("show", "learnings")["learnings"] == []  # global memory untouched


def test_long_checks_show_bounded_progress_and_short_ones_none():
    import time

    from cogit.sync.incoming import _ticker

    lines = []
    tick = _ticker(lines.append, every=0.05)
    for n in range(1, 3001):
        tick("Checking pulled commits (main)", n, 3000)
        time.sleep(0.0001)
    assert lines[-1] == b"Checking pulled commits (main): 100% (3000/3000), done.\n"
    assert 2 <= len(lines) <= 3000 * 0.0001 / 0.05 * 4 + 10 and all(line.endswith(b"\r") for line in lines[:-1])
    quiet = []
    tick = _ticker(quiet.append)
    for n in range(1, 51):
        tick("Checking pulled commits (main)", n, 50)
    assert quiet == []
