"""Nociception (error friction), the nociceptive interrupt (layer 2) and motor learning.

A failure episode opens with the first failed call and collects the failures that follow.
The *run* is the number of trailing failures whose normalized signatures are similar
(Jaccard >= `similarity`) to the latest one: the same error again means stuck; a different
error breaks the run (exploring), and the senses stay silent.

Successful reads, searches and edits between failures do not break the run (edit, test,
same error, edit, test, same error is the loop this sense is for). The episode resolves after
`resolve_after` successes in a row counted from the first call in which the failing action
works again (exec: a test run again, the same program or a similar command; write: the same
file; otherwise the same tool); when the run of the failure that got resolved (the latest one)
reached `learn_min_failures`, the episode yields a motor learning: the failing call against the working one, and the calls just before
the working one (what changed, e.g. an Edit and what it replaced). An episode with no
resolving success is dropped silently after `forget_after` successes.

Layer 1 (`nociception`): the run reached `warn_at` (and not yet the interrupt).
Layer 2 (`interrupt`): level 1 when the run reaches `at`; each next level when
`escalate_after` more similar failures followed the previous level (level 3 then repeats
every 2 x `escalate_after`). Level 1 asks for the assumption and a read-only check that would
falsify it, level 2 says to change strategy, level 3 says to ask the user.
"""

from .base import cool, cooling, section
from .text import clip, display, plural, tag

MAX_FAILS = 12


def _episode():
    # ok: successes since the last failure; fixed: successes since the failing action first worked
    # run: trailing similar failures at the latest failure (the one a fix resolves)
    return {"fails": [], "count": 0, "ok": 0, "fixed": 0, "fix": None, "between": [], "level": 0, "mark": 0, "run": 0}


def _fixes(call, fail):
    """Whether a successful call is the failing action working: the same kind of thing done again.

    exec: both are test runs, or the same program, or similar commands; write: the same file;
    anything else: the same tool.
    """
    kind = call.get("kind")
    if kind != fail["kind"]:
        return False
    if kind == "exec":
        # here, not at the top: a call outside a failure episode needs neither module
        from .commands import program
        from .signature import similarity

        a, b = call.get("cmd") or "", fail.get("cmd") or ""
        return (call.get("is_test") and fail.get("test")) or program(a) == program(b) or similarity(a, b) >= 0.5
    if kind == "write":
        return call.get("target") == fail.get("target_full")
    return call.get("tool") == fail["tool"]


def _what(call):
    return clip(call.get("cmd") or call.get("target") or call.get("tool") or "?", 160)


def _brief(call, cwd=None):
    target = call.get("cmd") or display(call.get("target") or "", cwd)
    text = "%s %s" % (call.get("tool", "?"), clip(target, 60)) if target else call.get("tool", "?")
    if call.get("change"):
        text += " (%s)" % call["change"]
    return text


def _run(fails, threshold):
    from .signature import similarity

    latest = fails[-1]["sig"]
    n = 0
    later = None
    for f in reversed(fails):
        if similarity(f["sig"], latest) < threshold:
            break
        # An edit, then the same kind of error with other values ("assert 0 == 3", then
        # "assert 2 == 3"): red-green TDD moving, not a loop. The run starts after it.
        if later is not None and later.get("wrote") and later.get("vals") != f.get("vals"):
            break
        n += 1
        later = f
    return n


def _interrupt_text(level, run, since, fail):
    sig = clip(fail["err"], 120)
    what = clip(fail["what"], 100)
    if level == 1:
        return (
            "%s Level 1 of 3: the last %s ended with the same error, \"%s\" (latest: `%s`). "
            "These attempts have rested on one assumption about the code or the environment.\n"
            "- What is that assumption, in one sentence?\n"
            "- Which read-only check (reading the failing source or its docs, printing the actual value) "
            "would show it false before the next attempt?"
            % (tag("interrupt"), plural(run, "failure"), sig, what)
        )
    if level == 2:
        return (
            "%s Level 2 of 3: %s with the same error, \"%s\", %d of them after the level-1 reflection "
            "(latest: `%s`). Variations of this approach keep producing the same error, so the approach "
            "itself is the likely problem. Stop varying this fix and change strategy: read the source or "
            "docs of the failing component, find a working example in the repository, or work at a "
            "different layer." % (tag("interrupt"), plural(run, "failure"), sig, since, what)
        )
    return (
        "%s Level 3 of 3: %s with the same error, \"%s\", after a reflection and a change of strategy "
        "(latest: `%s`). The missing piece is probably something only the user knows. This is the "
        "point to ask the user, with what was tried, the exact error, and where it is stuck."
        % (tag("interrupt"), plural(run, "failure"), sig, what)
    )


def _diff(failing, working):
    a, b = failing.split(), working.split()
    added = [t for t in b if t not in a]
    removed = [t for t in a if t not in b]
    parts = []
    if added:
        parts.append("added `%s`" % clip(" ".join(added), 60))
    if removed:
        parts.append("dropped `%s`" % clip(" ".join(removed), 60))
    return " and ".join(parts)


def _learning(ep, call):
    failed = ep["fails"][-1]
    fix = ep["fix"]
    sig = clip(failed["err"], 120)
    n = ep["run"]
    between = ep["between"]
    after = (" after %s" % ", ".join(between)) if between else ""
    if failed.get("cmd") and fix.get("cmd"):
        if fix["cmd"] == failed["cmd"]:
            if between:
                text = '`%s` failed %d times with "%s"; it passed%s.' % (clip(failed["cmd"], 120), n, sig, after)
                category = "mistake"
            else:
                text = '`%s` failed %d times with "%s", then passed unchanged: a flaky or state-dependent command.' % (
                    clip(failed["cmd"], 120), n, sig)
                category = "insight"
        else:
            change = _diff(failed["cmd"], fix["cmd"])
            text = '`%s` failed %d times with "%s"; `%s` worked%s%s.' % (
                clip(failed["cmd"], 120), n, sig, clip(fix["cmd"], 120), " (%s)" % change if change else "", after)
            category = "mistake"
    else:
        how = "the same %s" % fix["tool"] if fix["tool"] == failed["tool"] else "switching to %s" % fix["tool"]
        if fix.get("target") and fix.get("target") != failed.get("target"):
            how += " on %s" % clip(fix["target"], 100)
        text = '%s of %s failed %d times with "%s"; %s worked%s.' % (
            failed["tool"], clip(failed.get("target") or "?", 100), n, sig, how, after)
        category = "mistake"
    context = "senses: %d similar failures of %s (interrupt level %d reached), resolved at tool call %d" % (
        n, failed["tool"], ep["level"], call.get("i", 0))
    return {"text": text, "category": category, "context": context}


def sense(state, call, ncfg, icfg, cwd=None):
    """Track the failure episode; returns ((sense, text) or None, [learnings])."""
    ep = section(state, "noci", _episode)
    if not call.get("ok", True):
        fail = {"i": call.get("i", 0), "tool": call.get("tool"), "kind": call.get("kind"),
                "sig": call.get("sig") or "error", "err": call.get("err") or call.get("sig") or "error",
                "what": _what(call), "cmd": call.get("cmd"), "test": bool(call.get("is_test")),
                "target": display(call.get("target") or "", cwd), "target_full": call.get("target") or ""}
        if call.get("vals"):
            fail["vals"] = call["vals"]
        else:
            from .signature import values_of

            fail["vals"] = values_of(fail["err"])
        if ep.get("wrote"):
            fail["wrote"] = True  # a successful write came between this failure and the one before
        ep["wrote"] = False
        ep["fails"] = (ep["fails"] + [fail])[-MAX_FAILS:]
        ep["count"] += 1
        ep["ok"], ep["fixed"], ep["fix"], ep["between"] = 0, 0, None, []
        run = ep["run"] = _run(ep["fails"], ncfg["similarity"])
        if icfg["enabled"] and run >= icfg["at"]:
            since = min(run, ep["count"] - ep["mark"])
            need = icfg["escalate_after"] * (2 if ep["level"] >= 3 else 1)
            if ep["level"] == 0 or since >= need:
                if ep["level"] == 2:  # the last level, reached once per episode: the person hears it too
                    state["notice"] = ("cogit: the agent has hit the same error %d times (\"%s\") after a reflection "
                                       "and a change of strategy; it was told to ask you for help."
                                       % (run, clip(fail["err"], 80)))
                ep["level"] = min(ep["level"] + 1, 3)
                ep["mark"] = ep["count"]
                return ("interrupt", _interrupt_text(ep["level"], run, since, fail)), []
            return None, []
        if ncfg["enabled"] and ep["level"] == 0 and run >= ncfg["warn_at"] and not cooling(state, "nociception"):
            cool(state, "nociception", ncfg["cooldown"])
            return ("nociception", '%s The last %s ended with the same error: "%s" (latest: `%s`). The same error '
                    "twice usually has one cause; does the next attempt test a different hypothesis?"
                    % (tag("nociception"), plural(run, "failure"), clip(fail["err"], 120), clip(fail["what"], 100))), []
        return None, []
    if not ep["count"]:
        return None, []
    ep["ok"] += 1
    if call.get("kind") == "write":
        ep["wrote"] = True
    if ep["fix"] is None:
        if _fixes(call, ep["fails"][-1]):
            ep["fix"] = {"tool": call.get("tool"), "cmd": call.get("cmd"), "target": display(call.get("target") or "", cwd)}
        else:
            ep["between"] = (ep["between"] + [_brief(call, cwd)])[-3:]
    if ep["fix"] is not None:
        ep["fixed"] += 1
    learnings = []
    if ep["fix"] is not None and ep["fixed"] >= icfg["resolve_after"]:
        if icfg["learn"] and ep["run"] >= icfg["learn_min_failures"]:
            learnings.append(_learning(ep, call))
        state["noci"] = _episode()
    elif ep["ok"] >= icfg["forget_after"]:
        state["noci"] = _episode()
    return None, learnings
