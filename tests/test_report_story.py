"""The pieces the report's story is told with: a rule's measured effect as the page shows
it, a session's title from its first prompt, the rules a session was shown (every
receipt, whatever its source), projects by name, and when the last report was made.

The whole report, built from real sessions through the real hooks, is tests/test_report.py."""

from __future__ import annotations

import json

from cogit.learn import prompts
from cogit.learn.session_trailers import SHOWN_MAX, TITLE_MAX, fold_trailers, parse_shown, shown_rules, title
from cogit.report_story import effect_view, last_report, remember_report, unique_names
from cogit.scope import display_name

TOKEN = "ghp_" + "a1B2c3D4e5" * 4


def effect(**kw) -> dict:
    base = {"shown": {"sessions": 40, "relevant": 20, "pattern": 4}, "withheld": {"sessions": 6, "relevant": 5, "pattern": 3},
            "effect": 0.4, "interval": [0.1, 0.7], "enough": True, "verdict": "helps",
            "applied": {"relevant": 25, "shown": 20, "followed": 15}, "text": "helps: the pattern in 20% of shown vs 60% of withheld"}
    base.update(kw)
    return base


def test_a_measured_effect_is_shown_with_its_rates_interval_and_use():
    v = effect_view(effect())
    assert v["verdict"] == "helps" and v["enough"] is True
    assert v["rates"] == ("shown: the pattern in 4 of 20 relevant sessions (20%); "
                          "withheld: the pattern in 3 of 5 relevant sessions (60%)")
    assert v["measure"] == "effect +0.40 (interval +0.10 to +0.70)"
    assert v["applied"] == "relevant in 25 sessions, shown in 20 of them, followed in 15"
    assert v["text"].startswith("helps:")
    hurts = effect_view(effect(verdict="hurts", effect=-0.25, interval=[-0.5, -0.02]))
    assert hurts["verdict"] == "hurts" and hurts["measure"] == "effect -0.25 (interval -0.50 to -0.02)"


def test_not_enough_data_says_so_and_never_shows_a_verdict_or_a_number():
    v = effect_view(effect(enough=False, verdict="not enough data", effect=None, interval=None,
                           withheld={"sessions": 1, "relevant": 0, "pattern": 0}))
    assert v["verdict"] == "not enough data" and v["measure"] == ""
    assert "withheld: no relevant session yet (1 sessions)" in v["rates"]
    # A verdict or a number without enough data is not shown, whatever came in.
    v = effect_view(effect(enough=False, verdict="helps", effect=0.9))
    assert v["verdict"] == "not enough data" and v["measure"] == ""


def test_nothing_measured_shows_nothing_and_bad_values_are_not_trusted():
    assert effect_view(None) is None and effect_view("helps") is None
    v = effect_view({"verdict": "wonderful", "enough": "yes", "effect": float("nan"), "interval": ["a", 1],
                     "shown": {"sessions": -3, "relevant": True, "pattern": "9"}, "applied": None, "text": "x" * 5000})
    assert v["verdict"] == "not enough data" and v["measure"] == "" and v["enough"] is False
    assert v["rates"].startswith("shown: no relevant session yet (0 sessions)")
    assert len(v["text"]) == 300
    v = effect_view(effect(effect=float("inf")))
    assert v["measure"] == ""


def test_a_title_is_the_first_prompt_redacted_without_absolute_paths_and_bounded():
    raw = prompts.title(f"</script><script>alert(1)</script> Fix   /home/someone/src/alpha/app.py and C:\\Users\\me\\x.txt, {TOKEN}")
    t = title(raw)
    assert t.startswith("</script><script>alert(1)</script> Fix …/app.py and …/x.txt, [REDACTED"), t
    assert "/home" not in t and "someone" not in t and TOKEN not in t and "ghp_" not in t
    assert "</script><script>alert(1)</script>" in t, "hostile markup stays text here; the page shows it as text"
    long = title("word " * 500)
    assert len(long) == TITLE_MAX and long.endswith("…")
    assert title("") == "" and title(None) == "" and title("   \n ") == ""
    assert title("see ~/notes/todo.md and file:///etc/passwd") == "see …/todo.md and …/passwd"
    assert title("and/or a / b") == "and/or a / b"


def test_the_hook_keeps_a_head_cut_only_at_white_space():
    assert prompts.title(None) == "" and prompts.title("a  b\n c") == "a b c"
    kept = prompts.title("x " * 250 + TOKEN * 10)
    assert kept == ("x " * 250).strip(), "a word that does not fit is left out, never cut"
    # The slice it reads may cut the last word in two: that piece is dropped too.
    cut = prompts.title(" " * (prompts.TITLE_HEAD * 2 - 10) + TOKEN)
    assert cut == ""
    assert len(prompts.title("word " * 10_000)) <= prompts.TITLE_HEAD


def test_the_rules_shown_count_every_receipt_whatever_its_source():
    receipts = [{"source": "startup", "shown": ["h-1a2b3c", "ru-aaaaaa", "l-ffffff"]},
                {"source": "reflex", "shown": ["ru-bbbbbb"]},
                {"source": "turn", "shown": ["ru-aaaaaa", "ru-<script>", 7]},
                "not a receipt"]
    assert shown_rules(receipts) == "ru-aaaaaa ru-bbbbbb"
    assert parse_shown("ru-aaaaaa ru-bbbbbb +3 more </script>") == ["ru-aaaaaa", "ru-bbbbbb"]
    many = shown_rules([{"source": "reflex", "shown": [f"ru-{i:06x}" for i in range(100)]}])
    assert len(many) <= SHOWN_MAX and many.endswith(" more") and len(parse_shown(many)) + int(many.split("+")[1].split()[0]) == 100
    assert fold_trailers({"title": "Hi /home/me/x.py", "receipts": receipts}) == {"Cogit-Title": "Hi …/x.py",
                                                                                  "Cogit-Shown": "ru-aaaaaa ru-bbbbbb"}
    assert fold_trailers({"receipts": []}) == {}


def test_projects_are_named_never_placed():
    assert display_name("github.com/acme/alpha") == "github.com/acme/alpha"
    assert display_name("/home/me/src/alpha") == "alpha"
    assert display_name("C:\\work\\alpha") == "alpha" and display_name("~/src/beta") == "beta"
    assert unique_names(["global", "/a/src/app", "/b/old/app", "/c/x/alpha"]) == ["global", "src/app", "old/app", "alpha"]
    assert unique_names(["/a/app", "/b/app"]) == ["a/app", "b/app"]
    assert unique_names(["/x/app", "/x/app/"]) == ["x/app", "x/app (2)"]


def test_the_last_report_is_remembered_on_this_machine_and_a_bad_file_is_no_date(tmp_path):
    runtime = tmp_path / "runtime"
    assert last_report(runtime) == (None, set())
    commits = [{"sha": "b" * 40, "t": 1_800_000_000}, {"sha": "a" * 40, "t": 1_799_999_999}]
    remember_report(runtime, 1_800_000_000.5, commits)
    assert last_report(runtime) == (1_800_000_000.5, {"b" * 40}), "the commits of its last second are remembered"
    assert (runtime / "report.json").stat().st_mode & 0o077 == 0
    for bad in ("{", "[]", json.dumps({"generated_at": "yesterday"}), json.dumps({"generated_at": True}),
                '{"generated_at": NaN}', "x" * 10_000):
        (runtime / "report.json").write_text(bad)
        assert last_report(runtime) == (None, set()), bad


def test_the_story_starts_in_the_second_of_the_last_report_without_repeating_what_it_told():
    from cogit.report_story import story

    def commit(sha, t):
        return {"sha": sha * 40, "t": t, "time": "", "parents": [], "scopes": ["global"], "summary": sha, "source": "user",
                "trailers": {}, "changes": [{"op": "+", "section": "learnings", "id": f"l-{sha * 6}", "text": f"lesson {sha}"}]}

    # The last report was made at 1000.7 and held commit b (of second 1000); c came in that
    # same second after it, d later, a before.
    commits = [commit("d", 1001), commit("c", 1000), commit("b", 1000), commit("a", 999)]
    told = story(commits, 1000.7, "last report", rules=[], items=[], sessions=[], proposed={}, left_out=0, told={"b" * 40})
    assert [x["text"] for x in told["learned"]["rows"]] == ["lesson d", "lesson c"] and told["commits"] == 2
    assert story(commits, None, "all", rules=[], items=[], sessions=[], proposed={}, left_out=0)["commits"] == 4
