"""The detectors are pure: a session's trace lines in, detections out."""

from __future__ import annotations

from cogit.learn import detectors


def call(n, tool="Bash", kind="exec", ok=True, **kw):
    return dict(n=n, tool=tool, kind=kind, ok=ok, **kw)


def test_each_builtin_detector_and_its_threshold():
    loop = [call(i, ok=False, sig="modulenotfounderror: no module named <str>", cmd="python app.py") for i in range(3)]
    assert [d.detector for d in detectors.run(loop)] == ["error_loop"]
    assert detectors.run(loop[:2]) == []
    reads = [call(i, tool="Read", kind="read", target="/p/a.py") for i in range(4)]
    assert [d.detector for d in detectors.run(reads)] == ["repeated_read"]
    searches = [call(i, tool="Grep", kind="search", target="/p") for i in range(3)]
    assert [d.detector for d in detectors.run(searches)] == ["circular_search"]
    edits = [call(i, tool="Edit", kind="write", target=f"/p/{i}.py") for i in range(8)]
    has_tests = {"has_tests": True}
    assert [d.detector for d in detectors.run(edits, None, has_tests)] == ["edits_without_tests"]
    # Issue 22: only untested edits at the end count (a long change that ended with a test
    # run was tested), and only in a project with tests.
    assert detectors.run(edits[:4] + [call(9, test="suite", cmd="pytest")] + edits[4:], None, has_tests) == []
    assert detectors.run(edits) == []
    long = [call(i, tool="Read", kind="read", target=f"/p/{i}") for i in range(50)]
    assert [d.detector for d in detectors.run(long)] == ["long_run"]
    assert detectors.run(long[:25] + [{"n": 25, "prompt": True}] + long[25:]) == []
    flood = [call(i, tool="Read", kind="read", target=f"/p/{i}", fired=["o2"]) for i in range(2)]
    assert [d.detector for d in detectors.run(flood)] == ["context_flood"]


def test_a_resolved_loop_teaches_its_fix_from_the_first_session():
    """Issue 22 part 2: the rule is the fix (the command that then worked), about 200 chars,
    project-relative, the error as written, never the normalized signature."""
    err = "ModuleNotFoundError: No module named 'dih_helpers'"
    trace = [call(i, ok=False, sig="modulenotfounderror: no module named <str>", err=err, cmd="python3 app.py") for i in range(3)]
    trace += [call(4, cmd="PYTHONPATH=src python3 app.py", motor=["`python3 app.py` failed 3 times; ..."])]
    (d,) = detectors.run(trace, None, {"cwd": "/home/me/proj"})
    assert d.lesson == "When `python3 app.py` fails with \"ModuleNotFoundError: No module named 'dih_helpers'\", run `PYTHONPATH=src python3 app.py` instead."
    assert d.signature not in d.lesson and d.episode.startswith("`python3 app.py` failed")
    # Worked unchanged after an edit: the edit is the fix, its path relative to the project.
    trace = [call(i, ok=False, sig="e", err="E assert 1 == 2", cmd="pytest -q") for i in range(3)]
    trace += [call(4, tool="Edit", kind="write", target="/home/me/proj/src/calc.py"), call(5, cmd="pytest -q", test="suite")]
    (d,) = detectors.run(trace, None, {"cwd": "/home/me/proj"})
    assert d.lesson == 'When `pytest -q` fails with "E assert 1 == 2", it worked after editing src/calc.py.'
    # Never fixed: what to do instead of a fourth attempt, still short.
    (d,) = detectors.run(trace[:3])
    assert "stop after the second identical failure" in d.lesson and len(d.lesson) <= 220


def test_preconditions_say_whether_the_session_came_near_the_pattern():
    reads = [call(i, tool="Read", kind="read", target=f"/p/{i}") for i in range(3)]
    assert not detectors.precondition("error_loop", reads)
    # Issue 22: running a command is not coming near an error loop; a failure is.
    assert not detectors.precondition("error_loop", reads + [call(9)])
    assert detectors.precondition("error_loop", reads + [call(9, ok=False, sig="x")])
    assert not detectors.precondition("repeated_read", reads)
    assert detectors.precondition("repeated_read", reads + [call(4, tool="Read", kind="read", target="/p/0")])


def test_custom_detectors_from_config():
    config = {"learning": {"custom_detectors": [
        {"name": "force_push", "tool": "Bash", "target": "push --force", "threshold": 1, "lesson": "Never force-push."}]}}
    trace = [call(1, cmd="git push --force origin main")]
    (d,) = [d for d in detectors.run(trace, config) if d.detector == "force_push"]
    assert d.lesson == "Never force-push."
    assert detectors.precondition("force_push", [call(2, cmd="ls")], config)
    assert detectors.run([call(1, cmd="git push origin main")], config) == []


def test_custom_detectors_are_schema_validated():
    import pytest

    from cogit.errors import InvalidState
    from cogit.store.state import schema

    good = b"schema_version: 1\nlearning:\n  custom_detectors:\n  - {name: force_push, tool: Bash, target: push --force, threshold: 1}\n"
    schema.parse("config", good, "config.yaml")
    for bad in (b"  - {name: error_loop, tool: Bash, threshold: 1}\n", b"  - {name: x, tool: Bash}\n",
                b"  - {name: x, tool: Bash, threshold: 1, target: a, error: b}\n"):
        with pytest.raises(InvalidState):
            schema.parse("config", b"schema_version: 1\nlearning:\n  custom_detectors:\n" + bad, "config.yaml")


# --- issue 22 part 1: what each detector now ignores -------------------------------------

def fails(cmd, errs, between=None):
    out = []
    for i, err in enumerate(errs):
        out.append(call(len(out), ok=False, sig="e assertionerror: assert <n> == <n>", err=err, cmd=cmd))
        if between:
            out.append(between(len(out)))
    return out


def test_error_loop_ignores_tdds_changing_errors_and_a_retried_transient_error():
    edit = lambda n: call(n, tool="Edit", kind="write", target="/p/calc.py", change="x")  # noqa: E731
    tdd = fails("pytest -q", ["assert 0 == 3", "assert 1 == 3", "assert 2 == 3"], edit)
    assert detectors.run(tdd) == []
    loop = fails("pytest -q", ["assert 0 == 3"] * 3, edit)
    assert [d.detector for d in detectors.run(loop)] == ["error_loop"]
    sleep = lambda n: call(n, cmd="sleep 5")  # noqa: E731
    net = fails("npm install", ["npm err! code econnreset"] * 3, sleep)
    assert detectors.run(net + [call(9, cmd="npm install")]) == []
    # ...but a fix in between (another command, an edit) is a lesson, and so is never working.
    assert [d.detector for d in detectors.run(net + [call(9, cmd="npm config set registry x"), call(10, cmd="npm install")])] == ["error_loop"]
    assert [d.detector for d in detectors.run(net)] == ["error_loop"]


def test_repeated_read_ignores_reads_after_edits_and_a_file_read_in_parts():
    r = lambda n, part=None: call(n, tool="Read", kind="read", target="/p/a.py", **({"part": part} if part else {}))  # noqa: E731
    e = lambda n: call(n, tool="Edit", kind="write", target="/p/a.py")  # noqa: E731
    assert detectors.run([r(0), e(1), r(2), e(3), r(4), e(5), r(6)]) == []
    assert detectors.run([r(i, f"{i * 400}:400") for i in range(6)]) == []
    assert [d.detector for d in detectors.run([r(i, "0:400") for i in range(4)])] == ["repeated_read"]


def test_circular_search_ignores_searches_that_find_things_and_leftover_checks():
    g = lambda n, hits, where="src": call(n, tool="Grep", kind="search", target=f"old_name in /p/{where}", hits=hits)  # noqa: E731
    e = lambda n: call(n, tool="Edit", kind="write", target="/p/a.py", change="`old_name` -> `new_name`")  # noqa: E731
    rename = [g(0, 5), e(1), g(2, 2), e(3), g(4, 0), g(5, 0, "tests"), g(6, 0, "docs")]
    assert detectors.run(rename) == []
    checked = [e(0), g(1, 0), g(2, 0, "tests"), g(3, 0, "docs")]  # nothing found after replacing it
    assert detectors.run(checked) == []
    lost = [g(0, 0), g(1, 0, "lib"), g(2, 0, ".")]  # never found anywhere
    assert [d.detector for d in detectors.run(lost)] == ["circular_search"]
    again = [g(0, 3), g(1, 3), g(2, 3)]  # the same search, the same answer, nothing changed
    assert [d.detector for d in detectors.run(again)] == ["circular_search"]


def test_edits_without_tests_ignores_docs_and_config():
    docs = [call(i, tool="Edit", kind="write", target=f"/p/{n}") for i, n in enumerate(["README.md", "docs/a.md", "x.toml", "c.yaml"] * 3)]
    assert detectors.run(docs, None, {"has_tests": True}) == []


def test_long_run_and_context_flood_are_off_unless_turned_on():
    assert set(detectors.DEFAULT_OFF) == {"long_run", "context_flood"}
    long = [call(i, tool="Read", kind="read", target=f"/p/{i}") for i in range(60)]
    assert detectors.run(long, None, None, off=detectors.DEFAULT_OFF) == []
