"""Import analysis for the Spatial sense: which files of a repository import a given file.

Real import statements are parsed, never substrings:
- Python: `import a.b`, `from a import b`, relative `from ..x import y`, parenthesised and
  backslash-continued lists; statements inside triple-quoted strings are ignored.
- JS/TS (also the script blocks of .vue/.svelte and the frontmatter of .astro): `import … from`,
  side-effect `import '…'`, `export … from`, `require()`, dynamic `import()`; comments and string
  literals are skipped; relative specs, `tsconfig.json`/`jsconfig.json` `baseUrl` and `paths`.
- Go: `import "x"` and `import ( … )` blocks, resolved with the module path of the nearest go.mod.
- Rust: `use` trees (`use crate::a::{b, c::d}`, `self`, `super`, aliases, globs), `mod x;`
  declarations and inline `crate::`/`super::`/`self::` paths; other crates of a workspace refer
  to the file through the package name of its Cargo.toml.

The parsed imports of each file are cached in `cache_dir`, one file per repository root and
language, keyed by each file's mtime and size, so a later scan only re-parses what changed.
A scan stops at its deadline and the cache keeps where it stopped: the next call continues
the walk from there, so the count becomes complete over a few calls on a repository too big
for one budget; until a walk has visited every directory the result says it is incomplete.
Standard library only.
"""

import bisect
import operator
import os
import time

from cogit import jsonio, projectfile

from .langs import LANG_EXT, lang_of  # noqa: F401 - lang_of is part of this module's interface

SKIP_DIRS = frozenset(
    "node_modules __pycache__ site-packages bower_components vendor target dist build venv env".split()
)
CACHE_VERSION = 3  # 3: the header names the root by a key, not its path


def find_repo_root(path):
    """The nearest directory at or above path's directory holding a `.git` (directory or file).

    File system only: GIT_DIR and the other GIT_* variables are never consulted.
    """
    from cogit.scope import find_toplevel  # the one walk up to a repository's top level

    return find_toplevel(os.path.dirname(os.path.abspath(path)))


# --- scanning: a resumable walk over a cache ---------------------------------------------------
#
# The cache is one text file per repository root and language, `spatial-<crc32>-<lang>.tsv`: a
# JSON header line, then for each directory holding sources a line "\t<dir>" followed by one
# line per source file, "name\tmtime_ns\tsize\tspecs as JSON", in name order. It is not one JSON
# document because loading and saving count against the budget and must stay a few ms on a
# 20,000-file repository: splitting a text is far cheaper than building and encoding 100,000
# JSON objects (and json.dump, unlike dumps, encodes in pure Python), and the specs of a file
# are decoded only when its line may name the changed file (see _needles).
#
# The header holds where the walk stopped, "stack": the directories still to visit, each with
# the last file name already done in it (null: not started), and "full": a walk from the root has
# reached its end, so every directory has cached lines and the count is complete. Each round
# continues the walk where the last one stopped, so a repository bigger than one budget is
# covered over a few rounds; directories not visited in a round keep their cached lines. Once
# the walk ends, the next starts again from the root, so that later changes are found as it
# comes round: each visit of a directory drops the lines of files (and the cached directories
# below it) that are no longer listed, so deleted files drop out within a sweep.


def _root_key(root):
    """Which root a cache is of, without its path: a folder's name may hold a secret, and
    the runtime folder holds none (the secret corpus test reads every runtime file)."""
    from cogit.spatial_index import _key

    return _key(os.path.abspath(root))


def _cache_path(cache_dir, root, lang):
    import zlib  # a .so: here, not at the top

    key = zlib.crc32(os.path.abspath(root).encode("utf-8", "replace")) & 0xFFFFFFFF
    return os.path.join(cache_dir, "spatial-%08x-%s.tsv" % (key, lang))


def _specs(raw):
    # jsonio, not json: `import json` brings `re` and costs the edit hook milliseconds
    try:
        return jsonio.loads("[%s]" % ",".join(raw))  # one call: far cheaper than one per file
    except ValueError:  # a damaged line: decode one by one
        out = []
        for r in raw:
            try:
                out.append(jsonio.loads(r))
            except ValueError:
                out.append([])
        return out


def _lines(blob, needles):
    """The lines of blob holding one of needles (all of them when needles is None)."""
    if needles is None:
        return blob.split("\n")
    spans = set()
    for needle in needles:  # str.find skips the lines without a needle at C speed
        i = blob.find(needle)
        while i >= 0:
            end = blob.find("\n", i)
            end = len(blob) if end < 0 else end
            spans.add((blob.rfind("\n", 0, i) + 1, end))
            i = blob.find(needle, end)
    return [blob[s:e] for s, e in sorted(spans)]


def _under(d, tops):
    """Whether directory d is one of tops or below one."""
    while True:
        if d in tops:
            return True
        if not d:
            return False
        d = d.rpartition("/")[0]


_NAME = operator.attrgetter("name")


def _resume_point(x):
    return isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], (str, type(None)))


class _Index:
    """The cached imports of one repository and language, and the walk that refreshes them."""

    def __init__(self, root, lang, cache_dir):
        self.root, self.lang = root, lang
        self.path = _cache_path(cache_dir, root, lang) if cache_dir else None
        self.blobs = {}  # directory ('' for the root) -> its lines, "\n"-joined
        self.stack, self.full, self.header = [], False, None
        self.dirty = set()  # directories whose lines changed in this round
        if self.path:
            self._load()

    def _load(self):
        try:
            with open(self.path, encoding="utf-8", errors="surrogateescape", newline="") as f:
                chunks = f.read().split("\n\t")
            head = jsonio.loads(chunks[0])
            stack = head["stack"]
            ok = head["v"] == CACHE_VERSION and head["root"] == _root_key(self.root) and head["lang"] == self.lang
            ok = ok and isinstance(stack, list) and all(_resume_point(x) for x in stack)
        except (OSError, ValueError, TypeError, KeyError):
            return
        if ok:
            self.stack, self.full, self.header = stack, head.get("full") is True, chunks[0]
            for chunk in chunks[1:]:
                d, _, blob = chunk.partition("\n")
                if blob:
                    self.blobs[d] = blob

    def save(self):
        head = jsonio.dumps(
            {"v": CACHE_VERSION, "root": _root_key(self.root), "lang": self.lang, "full": self.full, "stack": self.stack},
            ensure_ascii=True,
        )
        if not self.path or (head == self.header and not self.dirty):
            return  # unchanged: rewriting it would only cost time
        tmp = "%s.%d.tmp" % (self.path, os.getpid())
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            if self.header is None:  # no cache of this format yet: drop the one of version 1
                try:
                    os.remove(self.path[: -len(".tsv")] + ".json")
                except OSError:
                    pass
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(head + "".join("\n\t%s\n%s" % item for item in self.blobs.items()))
            os.replace(tmp, self.path)
        except (OSError, UnicodeError):
            try:
                os.remove(tmp)
            except OSError:
                pass

    def packages(self):
        """Directories holding an `__init__.py` (Python), from the cache: resolution needs all of them."""
        return {d for d, b in self.blobs.items() if b.startswith("__init__.py\t") or "\n__init__.py\t" in b}

    def files(self, needles=None, only=None):
        """{path relative to root: specs} of the cached files whose line holds one of needles."""
        rels, raw = [], []
        for d in self.blobs if only is None else only:
            blob = self.blobs.get(d)
            prefix = d + "/" if d else ""
            for line in _lines(blob, needles) if blob else ():
                parts = line.split("\t", 3)
                if len(parts) == 4:
                    rels.append(prefix + parts[0])
                    raw.append(parts[3])
        return dict(zip(rels, _specs(raw)))

    def walk(self, deadline, max_bytes):
        """Continue the walk from where the last round stopped, until it ends or the deadline passes."""
        stack = self.stack or [["", None]]
        from_root = stack == [["", None]]
        keys = None  # sorted cached directories, for forgetting vanished ones
        while True:
            if not stack:
                self.full = True  # every directory was visited: the cache covers the whole tree
                if from_root:
                    break
                stack, from_root = [["", None]], True  # a new sweep, if time remains, finds later changes
            if time.perf_counter() > deadline:
                break
            rel_dir, after = stack.pop()
            prefix = rel_dir + "/" if rel_dir else ""
            try:
                entries = sorted(os.scandir(os.path.join(self.root, rel_dir)), key=_NAME)
            except OSError:  # gone since it was listed: forget it and everything below
                keys = self._prune(rel_dir, (), keys)
                if self.blobs.pop(rel_dir, None) is not None:
                    self.dirty.add(rel_dir)
                continue
            blob = self.blobs.get(rel_dir, "")
            old = {line.partition("\t")[0]: line for line in blob.split("\n")} if blob else {}
            lines, subdirs, done, stop = [], [], after or "", None
            for entry in entries:
                name = entry.name
                if name in old and (stop is not None or name <= done):
                    lines.append(old[name])  # refreshed earlier in this sweep, or due in the next round
                    continue
                if "\t" in name or "\n" in name:
                    continue  # cannot be written in the cache
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if not name.startswith(".") and name not in SKIP_DIRS:
                            subdirs.append(name)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                if lang_of(name) != self.lang:
                    continue
                line = old.get(name)
                if stop is None and name > done:
                    if time.perf_counter() > deadline:
                        stop = done  # resume after it; the rest keep their cached lines
                    else:
                        line, done = self._line(entry, name, line, max_bytes), name
                if line:
                    lines.append(line)
            new = "\n".join(lines)  # files deleted since are not listed: their lines drop out
            if new != blob:
                self.dirty.add(rel_dir)
                if new:
                    self.blobs[rel_dir] = new
                else:
                    del self.blobs[rel_dir]
            if after is None:  # the first visit of this sweep: its subdirectories are still to do
                keys = self._prune(rel_dir, subdirs, keys)
                stack.extend([prefix + s, None] for s in reversed(subdirs))
            if stop is not None:
                stack.append([rel_dir, stop])
        self.stack = stack

    def _line(self, entry, name, old, max_bytes):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            return None
        stamp = "%d\t%d\t" % (st.st_mtime_ns, st.st_size)
        if old and old.startswith(stamp, len(name) + 1):
            return old
        specs = []
        from .import_parse import _parse  # the walk parses; a read of the index does not

        if st.st_size <= max_bytes:
            text = projectfile.read_text(entry.path, max_bytes)  # swapped for a FIFO since the walk? refused
            if text is not None:
                specs = _parse(self.lang, name, text)
        return "%s\t%s%s" % (name, stamp, jsonio.dumps(specs))

    def _prune(self, rel_dir, subdirs, keys):
        """Forget the cached directories below rel_dir that are not under one of its subdirs."""
        if keys is None:
            keys = sorted(self.blobs)
        prefix, keep = (rel_dir + "/" if rel_dir else ""), set(subdirs)
        i = bisect.bisect_left(keys, prefix)
        while i < len(keys) and keys[i].startswith(prefix):
            d = keys[i]
            i += 1
            if d != rel_dir and d[len(prefix) :].partition("/")[0] not in keep and d in self.blobs:
                del self.blobs[d]
                self.dirty.add(d)
        return keys


def scan(root, lang, deadline, cache_dir=None, max_bytes=1000000):
    """One round of the walk, saved; returns (files, dirs, complete) over everything cached.

    files maps a path relative to root ('/' separated) to its specs; dirs is the set of relative
    directories holding an `__init__.py` (Python only).
    """
    index = _Index(root, lang, cache_dir)
    index.walk(deadline, max_bytes)
    index.save()
    return index.files(), index.packages(), index.full


def blast_radius(path, budget_ms=200, cache_dir=None, max_bytes=1000000, root=None):
    """How many files of the repository import `path`.

    Returns None when it does not apply (unsupported language, no git repository above the
    file), else {"root", "rel", "lang", "count", "importers" (all, sorted), "complete", "ms"}.
    `complete` is False until a walk has visited every directory (over as many calls as it
    takes); the count is then a lower bound. The whole call, cache included, keeps to budget_ms.
    """
    from .import_resolve import _needles, importers

    start = time.perf_counter()
    lang = lang_of(path)
    if not lang:
        return None
    path = os.path.abspath(path)
    root = root or find_repo_root(path)
    if not root:
        return None
    rel = os.path.relpath(path, root).replace("\\", "/")
    if rel.startswith("../") or rel.split("/", 1)[0] in (".git",):
        return None
    t = time.perf_counter()
    index = _Index(root, lang, cache_dir)
    load = time.perf_counter() - t
    # Resolve against the cache first, so that its cost is known before the scan's deadline is set.
    needles = _needles(root, rel, lang)
    packages = index.packages() if lang == "py" else set()
    found = set(importers(root, rel, lang, index.files(needles), packages))
    # After the scan come re-resolving what it changed and saving, which costs about what loading
    # did (twice that, to be safe). A quarter of the budget stays in reserve for the file being
    # parsed when the deadline passes and for a busy machine (on 2 loaded cores, the save of a
    # 20,000-file cache measured 3 ms but up to 12).
    index.walk(start + budget_ms * 0.00075 - 2 * load, max_bytes)
    dirty = index.dirty
    moved = index.packages() ^ packages if lang == "py" else None
    if moved:  # an __init__.py came or went: files at and below its directory resolve differently
        packages ^= moved
        dirty = dirty | {d for d in index.blobs if _under(d, moved)}
    if dirty:
        found = {f for f in found if f.rpartition("/")[0] not in dirty}
        found.update(importers(root, rel, lang, index.files(needles, dirty), packages))
    index.save()
    found = sorted(found)
    return {
        "root": root,
        "rel": rel,
        "lang": lang,
        "count": len(found),
        "importers": found,
        "complete": index.full,
        "ms": round((time.perf_counter() - start) * 1000.0, 1),
    }
