"""Load the hook path's own modules straight from their compiled files.

A hook process lives for about 15 ms, and a silent tool call imports some 30 small cogit
modules. Through the import system each costs about 300,000 interpreter instructions of
bookkeeping (finders, specs, module locks: some 180 Python calls) on top of its body,
about half of what a silent PostToolUse spends over `python -c pass` (callgrind). Here a
module the event is known to import is read from its `__pycache__` file, checked the way
the import system checks it (magic number, the source's mtime and size), and executed
into a module object with the same attributes, in the order the import system would
finish them. Anything unusual (no or stale `.pyc`, a hash-based one, a module already
loaded, any error) skips the module and the normal import does its job later, so this
can only make a hook faster, never change what it does. Only cogit's own modules, from
the folder this package was loaded from; off under `-X importtime` (whose listing then
shows every import) and `-X cogit_no_preload`.

The lists are what each event imports on its plain path (tests/test_hooks_preload.py
holds them to a real run of each event): a module only some calls need stays out.
"""

import sys

# Every event, after the adapter's module (cogit/hooks/__init__.py run).
COMMON = ("cogit.paths", "cogit.bounds", "cogit.jsonio", "cogit.hooks.payload")
CORE = ("cogit.locking", "cogit.runtime", "cogit.hooks.core", "cogit.local_settings")
_SENSES = ("cogit.senses.base", "cogit.senses.call", "cogit.senses.config", "cogit.senses.text", "cogit.senses",
           "cogit.senses.sizes", "cogit.secret_kinds", "cogit.redact")
_TOOL = ("cogit.hooks.tool_events", *_SENSES, "cogit.senses.chronos", "cogit.senses.echo", "cogit.senses.nociception",
         "cogit.senses.o2", "cogit.senses.vestibular", "cogit.learn", "cogit.learn.record", "cogit.hooks.reflex")
# By the core's event name (cogit/hooks/core.py HANDLERS).
EVENTS = {
    "PreToolUse": ("cogit.hooks.tool_events", "cogit.hooks.reflex"),
    "PostToolUse": _TOOL,
    # a failure's signature: every failure, whatever it is
    "PostToolUseFailure": (*_TOOL[:9], "cogit.senses.signature", "cogit.senses.scan", "cogit.senses.commands", *_TOOL[9:]),
    "SessionStart": ("cogit.hooks.session", "cogit.heads", "cogit.scope", "cogit.secret_kinds",
                     "cogit.redact", "cogit.hooks.turn", "cogit.hooks.withhold", "cogit.learn", "cogit.learn.record"),
    "UserPromptSubmit": ("cogit.hooks.prompt", "cogit.learn", "cogit.learn.remember", *_SENSES[:5],
                         "cogit.senses.drift", "cogit.secret_kinds", "cogit.redact", "cogit.senses.chronos",
                         "cogit.learn.record", "cogit.hooks.turn"),
}

# A successful write to a file, once its call record says so (cogit/hooks/tool_events.py): the
# Spatial sense and its import index.
WRITE = ("cogit.senses.spatial", "cogit.senses.langs", "cogit.spatial_index", "cogit.senses.import_index",
         "cogit.scope")

_ROOT = __file__.rpartition("/cogit/")[0]  # the folder holding this `cogit` package


def enabled() -> bool:
    options = getattr(sys, "_xoptions", {})
    # under -O the import system would read the `opt-1` file: leave that case to it
    return "importtime" not in options and "cogit_no_preload" not in options and _ROOT != "" and not sys.flags.optimize


def load(names) -> None:
    """Load each of `names` not yet loaded; skip one without a current `.pyc`, stop
    quietly at the first error."""
    if not enabled():
        return
    bare = []  # packages created for their children, their own code not yet run
    try:
        for name in names:
            if name in sys.modules and name not in bare:
                continue
            _load(name, bare)  # False: no current .pyc; the import system loads it when asked
    except Exception:  # noqa: BLE001 - the normal import runs later and reports what is wrong
        pass
    for name in bare:  # never leave a package half made: the normal import makes it later
        sys.modules.pop(name, None)


def _source(name: str):
    """(source path, its stat, package?) of `name` under this cogit, or None: one stat
    for a module, two for a package."""
    from os import stat

    rel = f"{_ROOT}/{name.replace('.', '/')}"
    for path, package in ((rel + ".py", False), (rel + "/__init__.py", True)):
        try:
            return path, stat(path), package
        except OSError:
            continue
    return None


def _code(path: str, st):
    """The code object of `path` from its `__pycache__` file, if that file is current."""
    from marshal import loads

    from _frozen_importlib_external import MAGIC_NUMBER

    folder, _, base = path.rpartition("/")
    cached = f"{folder}/__pycache__/{base[:-3]}.{sys.implementation.cache_tag}.pyc"
    with open(cached, "rb") as f:
        data = f.read()
    if (data[:4] != MAGIC_NUMBER or data[4:8] != b"\0\0\0\0"
            or int.from_bytes(data[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != st.st_size & 0xFFFFFFFF):
        return None, cached
    return loads(memoryview(data)[16:]), cached


def _module(name: str, path: str, cached: str, package: bool):
    from _frozen_importlib import ModuleSpec
    from _frozen_importlib_external import SourceFileLoader

    loader = SourceFileLoader(name, path)
    spec = ModuleSpec(name, loader, origin=path, is_package=package)
    spec.cached, spec.has_location = cached, True
    module = type(sys)(name)
    module.__spec__, module.__loader__, module.__file__, module.__cached__ = spec, loader, path, cached
    module.__package__ = name if package else name.rpartition(".")[0]
    if package:
        module.__path__ = spec.submodule_search_locations = [path.rpartition("/")[0]]
    return module


def _load(name: str, bare: list) -> bool:
    if not name.startswith("cogit.") and name != "cogit":
        return False
    found = _source(name)
    if found is None:
        return False
    path, st, package = found
    try:
        code, cached = _code(path, st)
    except OSError:
        return False
    if code is None:
        return False
    parent, _, child = name.rpartition(".")
    if parent and parent not in sys.modules:  # its package runs after its children, as the import system finishes them
        made = _source(parent)
        if made is None or not made[2]:
            return False
        pcode, pcached = _code(made[0], made[1])
        if pcode is None:
            return False
        sys.modules[parent] = _module(parent, made[0], pcached, True)
        bare.append(parent)
    if name in bare:
        module = sys.modules[name]
    else:
        module = _module(name, path, cached, package)
        sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        if name in bare:
            bare.remove(name)
        raise
    if name in bare:
        bare.remove(name)
    if parent:
        setattr(sys.modules[parent], child, module)
    return True
