"""Hook entrypoints: `cogit hook <agent> <EVENT>`.

Hooks fail open, fast and silent: whatever happens (bad input, a locked or broken
store, a bug), the process exits 0 and prints either nothing or exactly one JSON
object; the cause goes to runtime/logs/hooks.log. Standard library only on this
path: no click, dulwich, ruamel.yaml or jsonschema is imported here.
"""


import io
import os
import sys
import time

MAX_LOG_BYTES = 1_000_000
# One adapter module per agent (cogit/hooks/<agent>.py): its payload -> the core's
# internal event, the core's reply -> the output its agent accepts.
AGENTS = ("claude", "codex", "gemini", "cursor", "openclaw")


def _probe_answer() -> str:
    """The version, once this Python has shown it also runs the rest of cogit: hook commands
    run with `-S` and find cogit by an explicit folder (cogit/launch.py), but the detached
    session-end work they start runs this interpreter normally and needs cogit's dependencies."""
    import subprocess

    from cogit.launch import background_argv

    try:
        check = subprocess.run(background_argv(os.sep, ["--version"]), stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=30)
        ok, why = check.returncode == 0, (check.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
    except (OSError, subprocess.SubprocessError) as e:
        ok, why = False, str(e)
    if not ok:
        return f"cogit-probe-broken {sys.executable} cannot run cogit's background work: {why[:200]}\n"
    return f"cogit-probe {__import__('cogit').__version__}\n"


def run(args: list[str], leave: bool = False) -> int:
    """Handle one hook call; 0 whatever happens.

    `leave` (the installed hook commands, cogit/launch.py): end the process right after the
    reply, flushed, with os._exit. A hook lives some 20 ms, and the interpreter's teardown
    (freeing every module, function and code object one by one) and the garbage
    collector's passes over the modules just loaded were a fifth of its instructions; the
    kernel frees the process at once. Nothing is left unwritten: every file on the hook
    path is written and closed inside a `with` block, locks are the kernel's, the detached
    work is its own process, and no thread or atexit handler is used. The import index
    builder (`build-index`, a long detached process) keeps the collector."""
    if leave and args[:1] != ["build-index"]:
        import gc

        gc.disable()
    code = _run(args)
    if leave:
        leave_now(code)
    return code


def leave_now(code: int) -> None:
    """End this process at once with `code`, its output flushed, without the interpreter's
    teardown: the hooks' way (above), and every CLI command's (cogit/entry.py `main`). A reader
    that went away (a closed pipe, `cogit log | head -1`) is no error: nothing more can reach it."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(code)


def _run(args: list[str]) -> int:
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # nothing but the final reply may reach the agent
    home_root = None
    try:
        from cogit.paths import home_dir

        home_root = home_dir()
        if os.environ.get("COGIT_DISABLE") == "1":
            return 0
        if args[:1] == ["build-index"]:  # the detached builder of an import index, started by a hook
            from cogit.senses.import_index import build_main

            return build_main(home_root, args[1:])
        if len(args) < 2:
            raise ValueError(f"usage: cogit hook <agent> <EVENT>, got {args!r}")
        agent, event = args[0], args[1]
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
        from cogit.hooks import preload  # the modules every event imports, without the import system's bookkeeping

        preload.load((*preload.COMMON, f"cogit.hooks.{agent}", *preload.CORE))
        __import__(f"cogit.hooks.{agent}")
        adapter = sys.modules[f"cogit.hooks.{agent}"]

        if os.environ.get("COGIT_HOOK_PROBE") == "1":
            # `cogit doctor` asks whether an installed command still starts a working cogit:
            # answer with the version, touch nothing (no payload, no memory, no log).
            real_stdout.write(_probe_answer())
            real_stdout.flush()
            return 0
        out = adapter.main(event, sys.stdin.buffer, home_root)
        if out:
            # UTF-8 whatever the locale: `-E` (see cogit/launch.py) drops PYTHONIOENCODING.
            buffer = getattr(real_stdout, "buffer", None)
            buffer.write(out.encode("utf-8")) if buffer is not None else real_stdout.write(out)
            real_stdout.flush()
    except BaseException as e:  # noqa: BLE001 - failing open is the contract
        if isinstance(e, SystemExit) and not e.code:
            return 0
        # Bad input is the caller's problem: one line. Anything else gets a traceback.
        log(home_root, f"{' '.join(args)}: {type(e).__name__}: {e}", exc=not isinstance(e, ValueError))
    finally:
        sys.stdout = real_stdout
    return 0


def log(home_root: str | None, text: str, exc: bool = False) -> None:
    try:
        if not home_root:
            return
        logs = os.path.join(home_root, "runtime", "logs")
        os.makedirs(logs, mode=0o700, exist_ok=True)
        path = os.path.join(logs, "hooks.log")
        try:
            if os.path.getsize(path) > MAX_LOG_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} [{os.getpid()}] {text}\n"
        if exc:
            import traceback

            line += "".join(traceback.format_exc(limit=8))
        from cogit.runtime import append_private

        append_private(path, line)
    except Exception:
        pass
