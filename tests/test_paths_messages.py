"""`--project` takes a folder any way a shell user gives it; error messages quote only
an excerpt of the input and give the advice that fits the command."""

from __future__ import annotations

import os

import pytest

from conftest import git as run_git


@pytest.fixture
def alpha(initialized):
    folder = initialized.home.parent / "proj" / "alpha"  # the commands run in home.parent
    folder.mkdir(parents=True)
    run_git(folder, "init", "-q")
    initialized.run("add", "learning", "alpha lesson", "--project", str(folder))
    return folder


@pytest.mark.parametrize("form", ["proj/alpha", "proj/alpha/", "./proj/alpha", "ABS", "~/alpha-link", "."])
def test_project_folder_in_every_shell_form(initialized, alpha, form):
    c = initialized
    cwd_form = form
    if form == "ABS":
        cwd_form = str(alpha)
    if form.startswith("~"):
        os.symlink(alpha, os.path.join(os.environ["HOME"], "alpha-link"))
    if form == ".":
        proc = run_in(c, alpha, "show", "learnings", "--json", "--project", ".")
        assert "alpha lesson" in proc.stdout, proc.stderr
        return
    texts = [i["text"] for i in c.json("show", "learnings", "--project", cwd_form)["learnings"]]
    assert texts == ["alpha lesson"]


def run_in(c, cwd, *args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "cogit", *args], cwd=str(cwd), capture_output=True, text=True,
                          env=dict(os.environ, COGIT_HOME=str(c.home)), timeout=60)


def test_a_known_project_name_wins_over_a_folder_of_that_name(initialized):
    c = initialized
    c.run("add", "learning", "named lesson", "--project", "shop")
    (c.home.parent / "shop").mkdir()  # a folder named like the project, in the cwd
    assert [i["text"] for i in c.json("show", "learnings", "--project", "shop")["learnings"]] == ["named lesson"]


def test_unknown_name_that_is_no_folder_says_what_to_do(initialized):
    proc = initialized.run("show", "--project", "nowhere/at-all", check=False)
    assert proc.returncode == 1 and "has no memory yet" in proc.err and "cogit project list" in proc.err


def test_add_over_the_limit_quotes_an_excerpt_and_advises_the_command(initialized):
    text = "lorem ipsum " * 300
    proc = initialized.run("add", "learning", text, check=False)
    assert proc.returncode == 2
    assert len(proc.err) < 400 and "3,599 characters, over the limit of 2,000" in proc.err
    assert "cogit commit" not in proc.err and "Shorten it" in proc.err


def test_focus_over_the_limit_quotes_an_excerpt_and_advises_the_command(initialized):
    proc = initialized.run("focus", "set", "f" * 2500, check=False)
    assert proc.returncode == 1 and "is too long" in proc.err
    assert len(proc.err) < 500 and "(2,500 characters)" in proc.err
    assert "cogit commit" not in proc.err and "run the command again" in proc.err
