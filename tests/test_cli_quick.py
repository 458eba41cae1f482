"""The commands answered without click (cogit/quickcli.py) print exactly what click prints.

entry.py asks cogit.quickcli first; it answers a few plain shapes of status, show, log,
why and add and gives everything else to click. Each shape runs here both ways, the quick
path (`python -m cogit`, as users run it) and the click path (cogit.cli.main), against the
same memory: same stdout, stderr and exit code. The quick path imports no click at all.
The plain `rules` with learned rules (their ledgers from the history index, cogit/quickrules.py)
is compared after each kind of evidence at the end.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import git as plain_git
from gitservers import git_env, requires_git  # noqa: F401  (fixtures)

CLICK_PATH = "import sys; from cogit.cli import main; sys.exit(main(sys.argv[1:]))"
PROBE = """
import json, sys
from cogit.entry import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(json.dumps([code, "click" in sys.modules]))
"""


def both(cogit, *args):
    return cogit.run(*args, check=False), click_run(cogit, *args)


@pytest.fixture
def memory(initialized):
    initialized.run("add", "learning", "Run the tests with python -m pytest -q")
    initialized.run("add", "heuristic", "Read the error before retrying", "--context", "failures")
    initialized.run("focus", "set", "speed", "-p", "first")
    return initialized


READS = [
    ["status"], ["status", "--json"],
    ["show"], ["show", "learnings"], ["show", "--json"], ["show", "heuristics", "--json"], ["show", "nosuch"],
    ["log"], ["log", "-n", "2"], ["log", "-n", "1", "--json"], ["log", "--json", "-n", "3"],
    ["log", "--event", "learning", "-n", "1"], ["log", "-n", "5", "--event", "focus.set", "--json"],
    ["why", "ID"], ["why", "ID", "--json"], ["why", "l-000000"],
]


# diff and rules read caches that the commands themselves keep (see the tests at the end)
QUICK_READS = [["diff"], ["diff", "--json"], ["rules"], ["rules", "--json"]]


@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_a_read_prints_the_same_both_ways(memory, args):
    lid = memory.json("show", "learnings")["learnings"][0]["id"]
    args = [lid if a == "ID" else a for a in args]
    memory.run("log")  # the history caches as a second command finds them (both ways read the same)
    quick, slow = both(memory, *args)
    assert (quick.returncode, quick.out, quick.err) == (slow.returncode, slow.stdout, slow.stderr)
    assert quick.out or quick.err


def test_each_plain_shape_is_answered_without_click(memory):
    lid = memory.json("show", "learnings")["learnings"][0]["id"]
    for args in [*READS[:-1], *QUICK_READS, ["add", "learning", "one more lesson about the quick path"]]:
        args = [lid if a == "ID" else a for a in args]
        out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                             cwd=memory.home.parent).stdout
        code, clicked = json.loads(out.splitlines()[-1])
        assert not clicked, args
        assert code == (2 if args == ["show", "nosuch"] else 0), args


@pytest.mark.parametrize("args", [
    ["log", "-n", "0"], ["log", "-n", "x"], ["log", "-n20"], ["log", "-n", "1", "-n", "2"], ["status", "--help"],
    ["show", "--at", "HEAD"], ["add", "learning", "--force", "x"], ["add", "rule", "x"], ["add", "note", "x"],
    ["why"], ["--home", "HOME", "status"], ["status", "extra"], ["log", "--event", "a", "--event", "b"],
    ["log", "--event"], ["log", "--source", "cli"],
    ["diff", "HEAD"], ["diff", "--raw"], ["diff", "--project", "x"], ["diff", "--json", "--json"],
    ["rules", "show", "r-000000"], ["rules", "--project", "x"], ["rules", "tombstones"],
])
def test_every_other_shape_goes_to_click(memory, args):
    args = [str(memory.home) if a == "HOME" else a for a in args]
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                         cwd=memory.home.parent).stdout
    assert json.loads(out.splitlines()[-1])[1], args  # click parsed it (and said what was wrong, if anything)


def _shape(text: str) -> str:
    return re.sub(r"\b[0-9a-f]{10}\b|\b[lha]-[0-9a-f]{6}\b", "X", text)


def click_run(cogit, *args):
    return subprocess.run([sys.executable, "-c", CLICK_PATH, *args], capture_output=True, text=True, cwd=cogit.home.parent)


def test_add_prints_and_commits_the_same_both_ways(memory):
    quick = memory.run("add", "avoidance", "Never parse the options of a command twice")
    slow = click_run(memory, "add", "avoidance", "Always count the whales before the lunch")
    assert slow.returncode == 0
    assert _shape(quick.out).replace("Never parse the options of a command twice", "T") == \
        _shape(slow.stdout).replace("Always count the whales before the lunch", "T")
    # a duplicate: the same text again gains evidence, both ways alike (one commit each)
    quick = memory.run("add", "avoidance", "Never parse the options of a command twice")
    slow = click_run(memory, "add", "avoidance", "Always count the whales before the lunch")
    assert "gained evidence (now 1)" in quick.out
    assert _shape(quick.out).replace("Never parse the options of a command twice", "T") == \
        _shape(slow.stdout).replace("Always count the whales before the lunch", "T")
    log = memory.json("log", "-n", "4")
    assert [e["trailers"]["Cogit-Event"] for e in log] == ["avoidance.evidence"] * 2 + ["avoidance.add"] * 2
    assert {e["trailers"]["Cogit-Source"] for e in log} == {"cli"}
    memory.assert_healthy()


def test_an_error_in_the_quick_path_is_the_clicks_error(cogit):
    quick, slow = both(cogit, "status")  # no memory yet
    assert (quick.returncode, quick.out, quick.err) == (slow.returncode, slow.stdout, slow.stderr)
    assert quick.returncode == 1 and "cogit init" in quick.err


def test_escape_sequences_are_stripped_off_a_pipe_as_click_strips_them(memory):
    # Stored text never holds control characters (the write path drops them); an argument can.
    quick, slow = both(memory, "why", "\x1b[31mred\x1b[0m")
    assert (quick.returncode, quick.out) == (slow.returncode, slow.stdout)
    assert quick.out == "No commit mentions red in any scope.\n"


def _click_at(cogit, cwd, *args):
    return subprocess.run([sys.executable, "-c", CLICK_PATH, *args], capture_output=True, text=True, cwd=cwd)


def _imports_at(cogit, cwd, *args) -> set[str]:
    proc = cogit.run(*args, cwd=cwd, env={"PYTHONPROFILEIMPORTTIME": "1"}, check=False)
    return {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.err.splitlines() if "|" in line}


@pytest.fixture
def project_dir(tmp_path, git_env):  # noqa: F811
    folder = tmp_path / "work" / "proj"
    folder.mkdir(parents=True)
    plain_git(folder, "init", "--quiet")
    plain_git(folder, "remote", "add", "origin", "https://example.com/me/proj.git")
    return folder


@requires_git
def test_plain_diff_and_rules_match_the_full_path_after_each_kind_of_change(memory, project_dir):
    """The quick `diff` reads the last commit's changes from the history index, the quick
    `rules` the snapshots and the index's records (the ledgers); click's commands read the store. After
    each change both print the same, in a plain folder and in a project's (labelled), and
    once the index holds the heads the quick path imports neither click nor dulwich."""
    memory.run("why", "l-000000")  # the history index, as any `why` leaves it
    first = memory.json("show", "learnings")["learnings"][0]["id"]
    steps = [
        ("add", lambda: memory.run("add", "learning", "Read the whole traceback first")),
        ("project add", lambda: memory.run("add", "learning", "This project builds with make", "--project", ".", cwd=project_dir)),
        ("focus", lambda: memory.run("focus", "set", "the quick path", "-p", "diff")),
        ("forget", lambda: memory.run("forget", first)),
        ("revert", lambda: memory.run("revert", memory.git("rev-parse", "main").strip())),
        ("rule", lambda: memory.run("add", "rule", "Run the narrow test first", "--detector", "error_loop")),
        ("evidence", lambda: memory.run("add", "learning", "Read the whole traceback first")),
    ]
    fast = 0
    for step, change in steps:
        change()
        for cwd in (memory.home.parent, project_dir):
            for args in QUICK_READS:
                slow = _click_at(memory, cwd, *args)
                for _ in range(2):  # the first may take the full path (and index the new head)
                    quick = memory.run(*args, cwd=cwd, check=False)
                    assert (quick.returncode, quick.out, quick.err) == (slow.returncode, slow.stdout, slow.stderr), (step, args, cwd)
                    assert quick.out
                imported = _imports_at(memory, cwd, *args)
                assert "click" not in imported
                assert "dulwich" not in imported, (step, args, cwd)  # rules with a ledger too: cogit/quickrules.py
                fast += 1
    assert fast == 2 * 2 * 2 * len(steps)
    memory.assert_healthy()


def test_plain_diff_and_rules_take_the_full_path_without_their_caches(memory):
    shutil.rmtree(memory.home / "runtime" / "cache", ignore_errors=True)
    for args in QUICK_READS:
        quick, slow = both(memory, *args)
        assert (quick.returncode, quick.out, quick.err) == (slow.returncode, slow.stdout, slow.stderr)
        assert quick.out
    # an unreadable record (a torn or foreign index) is a miss, never a wrong answer
    memory.run("why", "l-000000")
    dat = memory.home / "runtime" / "cache" / "history.dat"
    dat.write_bytes(b"x" * dat.stat().st_size)
    quick, slow = both(memory, "diff")
    assert (quick.returncode, quick.out) == (slow.returncode, slow.stdout) and quick.out.startswith("~ focus")


def _modules(cogit, *args) -> set[str]:
    proc = cogit.run(*args, env={"PYTHONPROFILEIMPORTTIME": "1"})
    return {line.rsplit("|", 1)[-1].strip() for line in proc.err.splitlines() if "|" in line}


def test_the_cold_add_and_diff_import_only_what_they_use(memory):
    """A write reads the schemas as files (not through importlib.resources, which imports
    zipfile), makes ids with os.urandom (not secrets: hmac, random), and reports without the
    history code; a cold diff or why renders changes without dataclasses (inspect)."""
    added = _modules(memory, "add", "learning", "Import only what the command uses")
    assert not added & {"click", "jsonschema", "ruamel", "importlib.resources", "zipfile", "secrets",
                        "cogit.store.history.log", "cogit.store.scoped"}, added
    lid = memory.json("show", "learnings")["learnings"][0]["id"]
    memory.run("why", lid)
    memory.run("diff")  # indexes the new head
    for args in (["diff"], ["why", lid]):
        imported = _modules(memory, *args)
        assert not imported & {"click", "dulwich", "dataclasses", "inspect", "typing"}, (args, imported)


@pytest.fixture
def learned(initialized, project_dir, monkeypatch):
    """Memory whose rules have a ledger, made through the hooks and finalize."""
    monkeypatch.setenv("COGIT_WITHHOLD_SEED", "3")
    initialized.run("add", "learning", "This project builds with make", "--project", ".", cwd=project_dir)
    return initialized


def _rules_both_ways(c, cwd, step):
    """The quick `rules` prints what click's full path prints; once it has run (the full
    path indexes the heads), it reads the ledgers from the index: no click, no dulwich."""
    for args in (["rules"], ["rules", "--json"]):
        slow = _click_at(c, cwd, *args)
        for _ in range(2):
            quick = c.run(*args, cwd=cwd, check=False)
            assert (quick.returncode, quick.out, quick.err) == (slow.returncode, slow.stdout, slow.stderr), (step, args, cwd)
        imported = _imports_at(c, cwd, *args)
        assert not imported & {"click", "dulwich"}, (step, args, cwd)
    return json.loads(slow.stdout)


@requires_git
def test_plain_rules_with_a_ledger_match_the_full_path(learned, project_dir):
    from test_learning_loop import bash, loop, session
    from test_rule_effect import _sids

    c = learned
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learning:\n", "learning:\n  withhold: 0.5\n", 1))
    c.run("commit", "-m", "Withhold half the rules")
    c.run("why", "l-000000")  # the history index, as any `why` leaves it
    detect = lambda sid, **kw: session(c, sid, loop(sid), **kw)  # noqa: E731 - a loop on one error: a detection
    steps = [
        ("rule from a detection", lambda: detect("q1")),
        ("person's rule", lambda: c.run("add", "rule", "Read the error before retrying", "--detector", "error_loop")),
        ("suppression", lambda: session(c, "q2", [bash("q2", 1, cmd="python -m app --check")])),
        ("detection", lambda: detect("q3")),
        ("revert of a detection", lambda: c.run("revert", next(
            e["sha"] for e in c.json("log", "--session", "q3") if e["trailers"]["Cogit-Event"] == "rule.detect"))),
        ("project rule", lambda: c.run("add", "rule", "Build with make, not by hand", "--detector", "error_loop",
                                       "--project", ".", cwd=project_dir)),
        ("project session", lambda: detect("q4", cwd=str(project_dir))),
    ]
    for step, change in steps:
        change()
        for cwd in (c.home.parent, project_dir):
            rows = _rules_both_ways(c, cwd, step)
    rid = next(r["id"] for r in rows if r["detections"])
    for sid in _sids(next(r["text"] for r in rows if r["id"] == rid), 0.5, True, 2):  # withheld sessions
        session(c, sid, [bash(sid, 1, cmd="python -m app --check")])
        rows = _rules_both_ways(c, c.home.parent, "withheld " + sid)
    assert {r["scope"] for r in rows} >= {"global"} and any(r["suppressions"] for r in rows)
    assert any(r.get("effect", {}).get("withheld", {}).get("sessions") for r in rows), rows
    assert len(_rules_both_ways(c, project_dir, "project")) > len([r for r in rows if r["scope"] == "global"]) - 1

    # caches deleted, then damaged: the full path answers (the same), never a wrong ledger
    shutil.rmtree(c.home / "runtime" / "cache")
    for cwd in (c.home.parent, project_dir):
        slow = _click_at(c, cwd, "rules", "--json")
        quick = c.run("rules", "--json", cwd=cwd)
        assert (quick.out, quick.err) == (slow.stdout, slow.stderr)
    c.run("why", "l-000000")  # the whole index again (a plain `rules` indexes only a few newest commits)
    assert not _imports_at(c, c.home.parent, "rules") & {"click", "dulwich"}
    cache = c.home / "runtime" / "cache"
    dat = cache / "history.dat"
    data = dat.read_bytes()
    # Records are stored compressed (store/history/records.py): damage one in its JSON, pack it
    # again and pad it to its old length (zlib ignores what follows its stream), so the index's
    # offsets and lengths still hold and only the record's content is wrong.
    from cogit.store.history import records
    from cogit.store.history.index import MAX_RECORD, Index

    index = Index(str(cache))
    spans = sorted((row[2], row[3]) for row in index.rows.values())
    index.close()

    def damage(edit):
        for off, length in spans:
            text = records.text(data[off:off + length], MAX_RECORD)
            bad = edit(text)
            if bad == text:
                continue
            packed = records.pack(json.loads(bad))
            if len(packed) <= length:
                return data[:off] + packed + b"\0" * (length - len(packed)) + data[off + length:]
        raise AssertionError("no record to damage")

    # (Each edit makes the JSON shorter, so the record packs again within its old length.)
    same_length = damage(lambda t: re.sub(rb'"Cogit-Rule":"ru-[0-9a-f]+"', rb'"Cogit-Rule":7', t))  # a number, not a rule id
    assert same_length != data and len(same_length) == len(data)
    # ... and a rule's record replaced by another commit's (shorter, padded): not its commit's
    texts = [(off, length, records.text(data[off:off + length], MAX_RECORD)) for off, length in spans]
    off, length, _ = next(x for x in texts if b'"Cogit-Rule"' in x[2])
    other = min((x for x in texts if b'"Cogit-Rule"' not in x[2]), key=lambda x: x[1])
    assert other[1] <= length
    not_theirs = data[:off] + data[other[0]:other[0] + other[1]] + b"\0" * (length - other[1]) + data[off + length:]
    for damaged in (same_length, not_theirs):
        dat.write_bytes(damaged)
        quick, slow = both(c, "rules", "--json")
        assert (quick.returncode, quick.out, quick.err) == (slow.returncode, slow.stdout, slow.stderr)
        assert json.loads(quick.out) == rows
    c.assert_healthy()
