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
    assert [d.detector for d in detectors.run(edits)] == ["edits_without_tests"]
    assert detectors.run(edits[:4] + [call(9, test="suite", cmd="pytest")] + edits[4:]) == []
    long = [call(i, tool="Read", kind="read", target=f"/p/{i}") for i in range(50)]
    assert [d.detector for d in detectors.run(long)] == ["long_run"]
    assert detectors.run(long[:25] + [{"n": 25, "prompt": True}] + long[25:]) == []
    flood = [call(i, tool="Read", kind="read", target=f"/p/{i}", fired=["o2"]) for i in range(2)]
    assert [d.detector for d in detectors.run(flood)] == ["context_flood"]


def test_the_motor_learning_of_a_resolved_loop_becomes_the_lesson():
    trace = [call(i, ok=False, sig="e", cmd="make") for i in range(3)] + [call(4, cmd="make -j1", motor=["`make` failed 3 times; `make -j1` worked."])]
    (d,) = detectors.run(trace)
    assert d.lesson == "`make` failed 3 times; `make -j1` worked."


def test_preconditions_say_whether_the_session_did_that_kind_of_work():
    reads = [call(i, tool="Read", kind="read", target=f"/p/{i}") for i in range(3)]
    assert not detectors.precondition("error_loop", reads)
    assert detectors.precondition("error_loop", reads + [call(9)])
    assert detectors.precondition("repeated_read", reads)


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
