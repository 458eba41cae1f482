"""Who imports what, for a whole Python repository at once: the reverse index the detached
builder writes so that the edit hook answers from one line (cogit/senses/import_index.py).

`importers()` in import_resolve.py answers one changed file by resolving every candidate's
specs against it: about 20 ms for a module that 1,800 of 2,000 files import, too slow for a
hook. Here each importer's specs are resolved once, forward, to the module keys they can
name, with the same rules: a key is a file's path without its extension (and without
`/__init__` for a package), known under the dotted name it has below each base of
sys.path that `_py_importers` uses ("", src, lib, python, source and the importer's own
first non-package ancestor). tests/senses/test_imports.py holds the two to the same answer
for every file. Standard library only.
"""

import os

_BASES = ("", "src", "lib", "python", "source")


def _key(rel):
    """(key, is_init) of a Python file: 'pkg/core' for pkg/core.py, 'pkg' for pkg/__init__.py."""
    stem = rel[: -len(os.path.splitext(rel)[1])]
    is_init = stem.endswith("/__init__") or stem == "__init__"
    key = stem[: -len("/__init__")] if is_init else stem
    return ("" if key == "__init__" else key), is_init


def py_reverse(files, dirs):
    """{file: sorted files that import it} for the Python `files` (rel -> specs); `dirs` are
    the directories holding an `__init__.py`."""
    by_key = {}
    for rel in files:
        key, is_init = _key(rel)
        by_key.setdefault(key, []).append((rel, is_init))
    dotted = {}  # base -> {dotted name below base: [keys]}

    def names_below(base):
        if base not in dotted:
            table = dotted[base] = {}
            for key in by_key:
                if base and not key.startswith(base + "/"):
                    continue
                rest = key[len(base) + 1 :] if base else key
                if rest:
                    table.setdefault(rest.replace("/", "."), []).append(key)
        return dotted[base]

    from cogit.senses.import_resolve import sys_path_bases

    sys_path_base = sys_path_bases(dirs)

    out = {}
    for rel, specs in files.items():
        if not specs:
            continue
        fdir = rel.rpartition("/")[0]
        tables = [names_below(b) for b in dict.fromkeys(_BASES + (sys_path_base(fdir),))]
        hits = set()  # (key, only a package's __init__ counts)
        for spec in specs:
            if spec[0] == "i":
                name = spec[1]
                for table in tables:
                    hits.update((k, False) for k in table.get(name, ()))
                    j = name.find(".")
                    while j >= 0:  # `import a.b.c` imports the packages a and a.b too
                        hits.update((k, True) for k in table.get(name[:j], ()))
                        j = name.find(".", j + 1)
            elif spec[1] == 0:
                mod = spec[2]
                for table in tables:
                    hits.update((k, False) for k in table.get(mod, ()))
                    for n in spec[3]:
                        hits.update((k, False) for k in table.get(mod + "." + n, ()))
            else:
                base = fdir
                for _ in range(spec[1] - 1):
                    base = base.rpartition("/")[0]
                target = "/".join(x for x in (base, spec[2].replace(".", "/")) if x)
                hits.add((target, False))
                hits.update((("%s/%s" % (target, n) if target else n), False) for n in spec[3])
        for key, init_only in hits:
            for target, is_init in by_key.get(key, ()):
                if target != rel and (is_init or not init_only):
                    out.setdefault(target, set()).add(rel)
    return {target: sorted(found) for target, found in out.items()}
