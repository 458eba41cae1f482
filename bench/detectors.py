"""Precision and recall of each learning-loop detector on two corpora (issue 22, part 1).

Every session of bench/learning_corpus.py (ORDINARY: healthy work; REAL: the patterns worth a
rule, each labelled with its detector) runs through the installed cogit's real hook
entrypoints (`python -m cogit hook claude EVENT`, one subprocess per event) and `cogit
finalize`, in a temporary COGIT_HOME and HOME; the detections are read back from memory's
history (the session's `rule.detect` commits). Then, per detector:

- on ORDINARY: how many sessions it detected something in (each one a false positive);
- on REAL: recall (found / labelled) and precision (true detections / all its detections on
  both corpora).

Run: python bench/detectors.py [--json]; bench/run runs it as a plug-in (`figures`): the
ordinary corpus's false detections (target 0) and each measured detector's precision and
recall (target 100%). The corpora are small, so `--quick` runs them whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import learning_corpus as corpus  # noqa: E402

DETECTORS = ("error_loop", "repeated_read", "circular_search", "edits_without_tests", "long_run", "context_flood")


class Home:
    def __init__(self, root):
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        self.env.update(HOME=os.path.join(root, "userhome"), COGIT_HOME=os.path.join(root, "cogit-home"),
                        COGIT_AUTHOR="Bench <bench@example.com>")
        os.makedirs(self.env["HOME"])
        self.run("init")

    def run(self, *args, input=None):
        proc = subprocess.run([sys.executable, "-m", "cogit", *args], input=input, capture_output=True, env=self.env, timeout=120)
        if proc.returncode != 0 and args[0] != "hook":
            raise SystemExit(f"cogit {' '.join(args)} failed: {proc.stderr.decode()}")
        return proc.stdout.decode()

    def session(self, sid, build, cwd):
        s = corpus.Session(sid, cwd)
        build(s)
        for event, body in s.events():
            self.run("hook", "claude", event, input=json.dumps(body).encode())
        self.run("finalize")

    def detections(self, sid):
        by_id = {r["id"]: r["detector"] for r in json.loads(self.run("rules", "--json"))}
        log = json.loads(self.run("log", "--session", sid, "--json"))
        return [by_id.get(e["trailers"].get("Cogit-Rule"), "?") for e in log if e["trailers"].get("Cogit-Event") == "rule.detect"]


def measure():
    with tempfile.TemporaryDirectory() as tmp:
        project = corpus.make_project(os.path.join(tmp, "proj"))
        ordinary, real = {}, {}
        home = Home(os.path.join(tmp, "ordinary"))
        for name, build in corpus.ORDINARY.items():
            home.session("o-" + name, build, project)
            ordinary[name] = home.detections("o-" + name)
        home = Home(os.path.join(tmp, "real"))
        for name, (label, build) in corpus.REAL.items():
            home.session("r-" + name, build, project)
            real[name] = (label, home.detections("r-" + name))
    rows = {}
    for d in DETECTORS:
        fp_ord = [n for n, found in ordinary.items() if d in found]
        labelled = [n for n, (label, _) in real.items() if label == d]
        tp = [n for n in labelled if d in real[n][1]]
        fp_real = [n for n, (label, found) in real.items() if label != d and d in found]
        hits = len(tp) + len(fp_ord) + len(fp_real)
        rows[d] = {"ordinary_sessions": len(ordinary), "ordinary_false": fp_ord, "real_labelled": len(labelled),
                   "found": tp, "real_false": fp_real,
                   "precision": (len(tp) / hits) if hits else None,
                   "recall": (len(tp) / len(labelled)) if labelled else None}
    return rows, ordinary, real


MEASURED = ("error_loop", "repeated_read", "circular_search", "edits_without_tests")  # the rest are off by default


def figures(homes, quick):
    """bench/run's plug-in: rows of ROW_KEYS (the homes are not used: each corpus gets a fresh one)."""
    rows, ordinary, real = measure()
    false = sorted({f"{d}: {n}" for d, r in rows.items() for n in r["ordinary_false"]})
    how = (f"bench/learning_corpus.py through the real hook entrypoints and `cogit finalize`, a fresh home per corpus: "
           f"{len(ordinary)} ordinary sessions, {len(real)} real patterns")
    out = [{"figure": f"detections on the ordinary corpus ({len(ordinary)} healthy sessions, every detector)",
            "cogit": len(false), "reference": None, "ratio": None, "target": "0", "met": not false,
            "method": how + (f"; false: {', '.join(false)}" if false else "; none")}]
    for d in MEASURED:
        r = rows[d]
        for key, what in (("precision", "true detections / all its detections on both corpora"),
                          ("recall", "real patterns labelled with it that it found")):
            value = r[key]
            out.append({"figure": f"detector {d}: {key} (%)", "cogit": None if value is None else round(value * 100, 1),
                        "reference": None, "ratio": None, "target": "100%", "met": None if value is None else value >= 1.0,
                        "method": f"{how}; {what}: found {len(r['found'])} of {r['real_labelled']} labelled, "
                                  f"{len(r['ordinary_false']) + len(r['real_false'])} false"})
    return out


def main(argv):
    rows, ordinary, real = measure()
    if "--json" in argv:
        print(json.dumps({"detectors": rows, "ordinary": ordinary, "real": real}, indent=2))
        return 0
    pct = lambda v: "   -  " if v is None else f"{v * 100:5.1f}%"  # noqa: E731
    print(f"{'detector':<22}{'ordinary: false':>17}{'real: found':>13}{'precision':>11}{'recall':>9}")
    for d, r in rows.items():
        print(f"{d:<22}{len(r['ordinary_false']):>9} of {r['ordinary_sessions']:<5}{len(r['found']):>6} of {r['real_labelled']:<4}"
              f"{pct(r['precision']):>11}{pct(r['recall']):>9}")
    for d, r in rows.items():
        for n in r["ordinary_false"] + r["real_false"]:
            print(f"  false {d}: {n}")
    print("(long_run and context_flood are off unless turned on: they make no rule, so they have nothing to measure)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
