"""What a command runs and what a file is: the program past wrappers and `cd x &&`, whether
a command runs tests (the whole suite or targeted ones), test files and code files.
String operations only (no `re`): this runs on every shell call.
"""

import os


def _segments(cmd):
    """A shell command cut at &&, ||, ;, | and newlines (string operations: no `re` needed)."""
    for sep in ("&&", "||", ";", "|"):
        cmd = cmd.replace(sep, "\n")
    return cmd.split("\n")


def _is_python(prog):
    """python, python3, python3.11 ...: the name, then only digits and dots."""
    return prog.startswith("python") and all(c.isdigit() or c == "." for c in prog[6:])
_WRAPPERS = frozenset(
    "uv poetry pipenv hatch pdm rye npx pnpx bunx exec time env nice sudo xvfb-run command".split()
)
_SUITE_ONLY = frozenset("tox nox ctest phpunit".split())
_FILTER_OPTS = frozenset("-k -m -run --run -t --testNamePattern --test-name-pattern --grep -g --filter".split())


def _runner_args(segment):
    """The arguments after the test runner when this command segment runs tests, else None."""
    toks = [t.strip("'\"") for t in segment.split()]
    i = 0
    while i < len(toks):
        tok = toks[i]
        base = tok.rsplit("/", 1)[-1]
        if "=" in tok and not tok.startswith("-"):  # FOO=1 pytest
            i += 1
        elif base in _WRAPPERS:
            i += 2 if i + 1 < len(toks) and toks[i + 1] == "run" else 1
        elif base == "timeout":
            i += 1
            while i < len(toks) and (toks[i].startswith("-") or toks[i][:1].isdigit()):
                i += 1
        else:
            break
    if i >= len(toks):
        return None
    prog, args = toks[i].rsplit("/", 1)[-1], toks[i + 1 :]
    words = [a for a in args if not a.startswith("-")]
    if prog in ("pytest", "py.test", "jest", "vitest", "mocha", "rspec"):
        return args
    if prog in _SUITE_ONLY:
        return []
    if _is_python(prog) and args[:2] in (["-m", "pytest"], ["-m", "unittest"]):
        return args[2:]
    if prog in ("npm", "pnpm", "yarn", "bun"):
        if words[:1] == ["test"] or words[:1] == ["t"]:
            return args[args.index(words[0]) + 1 :]
        if words[:1] == ["run"] and len(words) > 1 and words[1].startswith("test"):
            return args[args.index(words[1]) + 1 :]
        return None
    if prog in ("deno", "go", "swift", "mix", "dotnet") and words[:1] == ["test"]:
        return args[args.index("test") + 1 :]
    if prog == "node" and "--test" in args:
        return [a for a in args if a != "--test"]
    if prog == "cargo" and words[:1] in (["test"], ["nextest"]):
        rest = args[args.index(words[0]) + 1 :]
        # a positional argument of cargo test is a test-name filter
        return ["--filter" if not a.startswith("-") else a for a in rest if a != "run"]
    if prog in ("make", "rake", "mvn", "gradle", "gradlew") and any(w in ("test", "check") for w in words):
        return []
    if prog == "bundle" and words[:2] == ["exec", "rspec"]:
        return args[args.index("rspec") + 1 :]
    return None


def program(cmd):
    """The program a command runs, past `cd x &&`, env assignments and wrappers: 'pytest', 'npm' …"""
    for segment in _segments(cmd or ""):
        toks = [t.strip("'\"") for t in segment.split()]
        while toks and (("=" in toks[0] and not toks[0].startswith("-")) or toks[0].rsplit("/", 1)[-1] in _WRAPPERS):
            toks = toks[2:] if len(toks) > 1 and toks[1] == "run" else toks[1:]
        if toks and toks[0] not in ("cd", "pushd", "source", ".", "set", "export"):
            prog = toks[0].rsplit("/", 1)[-1]
            if _is_python(prog) and len(toks) > 2 and toks[1] == "-m":
                return toks[2]  # python -m pip -> pip
            return prog
    return ""


def run_scope(cmd):
    """'suite' or 'targeted' when the command runs tests, else None.

    The runner has to be the program of one command segment (after wrappers such as `uv run`,
    `timeout 60` or `FOO=1`), so `pip install pytest` or `grep pytest` are not test runs.
    Targeted means it names test files, node ids (`x.py::test_y`) or a name filter (-k, -run, -t);
    a bare runner or a directory counts as the suite.
    """
    if not cmd:
        return None
    scope = None
    for segment in _segments(cmd):
        args = _runner_args(segment)
        if args is None:
            continue
        from . import scan
        if any(a.split("=", 1)[0] in _FILTER_OPTS or scan.names_tests(a) for a in args):
            scope = scope or "targeted"
        else:
            scope = "suite"
    return scope


def is_test_file(path):
    from . import scan

    return bool(path) and scan.is_test_path(path.replace("\\", "/"))


CODE_EXT = frozenset(
    ".py .pyi .js .jsx .ts .tsx .mjs .cjs .mts .cts .go .rs .rb .java .kt .kts .scala .c .h .cc .cpp .hpp "
    ".cs .swift .php .vue .svelte .ex .exs .lua .dart".split()
)


def is_code_file(path):
    return os.path.splitext(path or "")[1].lower() in CODE_EXT
