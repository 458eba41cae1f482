"""The hook path's preloader (cogit/hooks/preload.py): it loads each event's own modules
from their compiled files without the import system's bookkeeping, and must change
nothing but the speed: the same modules, the same reply, the same state."""

import json
import os
import py_compile
import subprocess
import sys

from test_hooks import bash_fail, bash_ok, payload

from cogit.hooks import preload
from cogit.launch import HOOK_CODE, package_root

# The hook's own command, then the cogit modules it left loaded and how each was loaded.
PROBE = HOOK_CODE.replace("run(sys.argv[2:], leave=True)", "code = run(sys.argv[2:]); "
                          "sys.stderr.write('MODULES ' + ' '.join(sorted(m for m in sys.modules if m.startswith('cogit'))) + '\\n'); "
                          "sys.exit(code)")


def _run(c, event, body, *flags):
    env = dict(os.environ, COGIT_HOME=str(c.home))
    proc = subprocess.run([sys.executable, "-E", "-P", "-S", *flags, "-c", PROBE, package_root(), "claude", event],
                          input=json.dumps(body).encode(), capture_output=True, env=env)
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stderr.decode().splitlines() if x.startswith("MODULES ")][-1]
    return proc.stdout, set(line.split()[1:])


def test_every_event_loads_the_same_modules_and_says_the_same_with_and_without_the_preloader(initialized):
    c = initialized
    events = (("SessionStart", payload("SessionStart", source="startup")),
              ("UserPromptSubmit", payload("UserPromptSubmit", prompt="please fix the failing parser test")),
              ("PreToolUse", payload("PreToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="toolu_p1")),
              ("PostToolUse", bash_ok(n=1)),
              ("PostToolUse", payload("PostToolUse", tool_name="Edit", tool_use_id="toolu_e1",
                                      tool_input={"file_path": "/tmp/x.py", "old_string": "a", "new_string": "b"},
                                      tool_response={"filePath": "/tmp/x.py", "oldString": "a", "newString": "b"})), ("PostToolUseFailure", bash_fail(n=2)), ("Stop", payload("Stop")))
    for event, body in events:
        # one session each way, so both start from the same state
        name = f"{event}-{body.get('tool_name', '')}"
        plain_out, plain = _run(c, event, dict(body, session_id=f"{name}-plain"), "-X", "cogit_no_preload")
        fast_out, fast = _run(c, event, dict(body, session_id=f"{name}-fast"))
        assert fast == plain, (event, fast ^ plain)
        # each list holds only modules the event's plain path imports (no body run for nothing)
        wanted = {*preload.COMMON, *preload.CORE, *preload.EVENTS.get(event, ()),
                  *(preload.WRITE if body.get("tool_name") == "Edit" else ())}
        assert wanted <= plain, (event, wanted - plain)
        assert fast_out == plain_out, event
    for way in ("plain", "fast"):
        state = json.loads((c.home / "runtime" / "sessions" / f"PostToolUse-Bash-{way}" / "state.json").read_text())
        assert state["agg"]["tools"]["Bash"]["calls"] == 1 and state["senses"]["n"] == 1, way
    assert not (c.home / "runtime" / "logs" / "hooks.log").exists() or \
        "Error" not in (c.home / "runtime" / "logs" / "hooks.log").read_text()


def test_a_module_is_preloaded_from_a_current_pyc_only(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("X = 1\n")
    py_compile.compile(str(src), cfile=str(tmp_path / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc"))
    code, cached = preload._code(str(src), os.stat(src))
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["X"] == 1 and cached.endswith(".pyc")
    src.write_text("X = 22\n")  # edited after it was compiled: size and mtime differ
    os.utime(src, (1, 1))
    assert preload._code(str(src), os.stat(src))[0] is None


def test_the_preloaded_modules_look_imported():
    """Loaded in a fresh process: the attributes the import system sets, a package's __path__."""
    code = ("import sys; from cogit.hooks import preload; preload.load(['cogit.senses.base', 'cogit.senses']);"
            "import cogit.senses as s; b = sys.modules['cogit.senses.base'];"
            "print(s.__path__[0].endswith('senses'), b.__spec__.name, b.__package__, s.base is b,"
            "b.__file__ == b.__spec__.origin, type(b.__loader__).__name__, s.__spec__.submodule_search_locations == s.__path__)")
    out = subprocess.run([sys.executable, "-S", "-c", f"import sys; sys.path.append({package_root()!r}); {code}"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "cogit.senses.base", "cogit.senses", "True", "True", "SourceFileLoader", "True"], out
