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
import json
import operator
import os
import time
import zlib

from cogit import projectfile

from .langs import LANG_EXT, lang_of  # noqa: F401 - lang_of is part of this module's interface
from .text import LazyRe, re, IGNORECASE, MULTILINE, DOTALL

SKIP_DIRS = frozenset(
    "node_modules __pycache__ site-packages bower_components vendor target dist build venv env".split()
)
CACHE_VERSION = 2


def find_repo_root(path):
    """The nearest directory at or above path's directory holding a `.git` (directory or file).

    File system only: GIT_DIR and the other GIT_* variables are never consulted.
    """
    from cogit.scope import find_toplevel  # the one walk up to a repository's top level

    return find_toplevel(os.path.dirname(os.path.abspath(path)))


# --- Python -------------------------------------------------------------------

_PY_IMPORT = LazyRe(
    r"^[ \t]*(?:from[ \t]+(\.*)[ \t]*((?!import\b)[\w.]*)[ \t]*\bimport\b[ \t]*(\([^)]*\)|(?:\\\r?\n|[^\n#;])*)"
    r"|import[ \t]+((?:\\\r?\n|[^\n#;])+))",
    MULTILINE,
)
# string literals and comments, consumed as units so that quotes inside them do not mislead
_PY_STRINGS = LazyRe(
    r"#[^\n]*"
    r"|[rRbBuUfF]{0,2}(\"\"\"|''')(?:\\.|(?!\1).)*?\1"
    r"|[rRbBuUfF]{0,2}'(?:\\.|[^'\\\n])*'"
    r'|[rRbBuUfF]{0,2}"(?:\\.|[^"\\\n])*"',
    DOTALL,
)


def _names(text):
    text = re.sub(r"#[^\n]*", "", text).replace("\\", " ").strip().strip("()")
    out = []
    for part in text.split(","):
        words = part.split()
        if words and words[0] != "*" and words[0].replace(".", "").replace("_", "a").isalnum():
            out.append(words[0])
    return out


def parse_python(text):
    """Specs: ["i", "a.b"] for `import a.b`; ["f", level, "mod", [names]] for `from … import …`."""
    spans = []
    if '"""' in text or "'''" in text:
        spans = [(m.start(), m.end()) for m in _PY_STRINGS.finditer(text) if m.group(1)]
    specs = []
    k = 0
    for m in _PY_IMPORT.finditer(text):
        pos = m.start()
        while k < len(spans) and spans[k][1] <= pos:
            k += 1
        if k < len(spans) and spans[k][0] <= pos:
            continue  # inside a triple-quoted string
        if m.group(4) is not None:
            for name in _names(m.group(4)):
                specs.append(["i", name])
        else:
            level, module = len(m.group(1)), m.group(2)
            if level == 0 and not module:
                continue
            specs.append(["f", level, module, _names(m.group(3))])
    return specs


# --- JavaScript / TypeScript -----------------------------------------------------

_JS_TOKENS = LazyRe(
    r"//[^\n]*"
    r"|/\*.*?\*/"
    r"|(?<![\w$.])(?:import|export)\b(?:type\b)?[^;'\"`()]*?\bfrom\s*(['\"])([^'\"\n]+)\1"
    r"|(?<![\w$.])import\s*(['\"])([^'\"\n]+)\3"
    r"|(?<![\w$.])(?:require|import)\s*\(\s*(['\"])([^'\"\n]+)\5\s*\)"
    r"|'(?:\\.|[^'\\\n])*'"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|`(?:\\.|[^`\\])*`",
    DOTALL,
)
_SCRIPT_BLOCK = LazyRe(r"<script\b[^>]*>(.*?)</script>", DOTALL | IGNORECASE)
_FRONTMATTER = LazyRe(r"\A\s*---\n(.*?)\n---", DOTALL)


def parse_js(text, ext=""):
    """Module specifiers imported, re-exported or required by a JS/TS source."""
    if ext in (".vue", ".svelte"):
        text = "\n".join(_SCRIPT_BLOCK.findall(text))
    elif ext == ".astro":
        m = _FRONTMATTER.match(text)
        text = (m.group(1) if m else "") + "\n" + "\n".join(_SCRIPT_BLOCK.findall(text))
    specs = []
    for m in _JS_TOKENS.finditer(text):
        spec = m.group(2) or m.group(4) or m.group(6)
        if spec and spec not in specs:
            specs.append(spec)
    return specs


# --- Go ---------------------------------------------------------------------------

_GO_TOKENS = LazyRe(r"//[^\n]*|/\*.*?\*/|`[^`]*`|\"(?:\\.|[^\"\\\n])*\"", DOTALL)
_GO_DECL_END = LazyRe(r"^(?:func|type|var|const)\b", MULTILINE)
_GO_BLOCK = LazyRe(r"\bimport\s*\(([^)]*)\)")
_GO_SINGLE = LazyRe(r"\bimport\s+(?:[\w.]+\s+)?\"([^\"]+)\"")
_GO_SPEC = LazyRe(r"(?:^|\n)\s*(?:[\w.]+\s+)?\"([^\"]+)\"")


def parse_go(text):
    """Import paths of a Go file (comments removed; only the header before the first declaration)."""
    text = _GO_TOKENS.sub(lambda m: m.group(0) if m.group(0)[:1] in "\"`" else " ", text)
    end = _GO_DECL_END.search(text)
    if end:
        text = text[: end.start()]
    specs = []
    for block in _GO_BLOCK.findall(text):
        specs.extend(_GO_SPEC.findall(block))
    specs.extend(_GO_SINGLE.findall(text))
    return list(dict.fromkeys(specs))


def go_module(gomod_path):
    text = projectfile.read_text(gomod_path, projectfile.MANIFEST)
    m = re.search(r"^\s*module\s+\"?([^\s\"]+)", text, MULTILINE) if text is not None else None
    return m.group(1) if m else None


# --- Rust ---------------------------------------------------------------------------

_RS_TOKENS = LazyRe(
    r"//[^\n]*|/\*.*?\*/|r(#*)\".*?\"\1|b?\"(?:\\.|[^\"\\])*\"|b?'(?:\\.|[^\\'\n])'", DOTALL
)
_RS_USE = LazyRe(r"\buse\s+([^;]+);")
_RS_MOD = LazyRe(r"\bmod\s+(\w+)\s*;")
_RS_PATH = LazyRe(r"\b(?:crate|super|self)(?:\s*::\s*(?:\w+|\{))+")


def _split_top(text, sep=","):
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p]


def _expand_use(prefix, tree, out, depth=0):
    if depth > 20:
        return
    brace = tree.find("{")
    if brace < 0:
        segs = [s for s in tree.split("::") if s]
        if segs and segs[-1] == "self":
            segs = segs[:-1]
        if segs and segs[-1] == "*":
            segs = segs[:-1]
        path = prefix + segs
        if path:
            out.append("::".join(path))
        return
    head = [s for s in tree[:brace].split("::") if s]
    body = tree[brace + 1 : tree.rfind("}")]
    for item in _split_top(body):
        _expand_use(prefix + head, item, out, depth + 1)


def parse_rust(text):
    """Paths a Rust file uses (`crate::a::b`, `super::x`, `name::y`) and `mod:name` declarations."""
    text = _RS_TOKENS.sub(" ", text)
    out = []
    for tree in _RS_USE.findall(text):
        tree = re.sub(r"\s+as\s+\w+", "", tree)
        _expand_use([], re.sub(r"\s+", "", tree).lstrip(":"), out)
    for m in _RS_PATH.finditer(text):
        path = re.sub(r"\s+", "", m.group(0)).rstrip("{").rstrip(":")
        out.append(path)
    out.extend("mod:" + name for name in _RS_MOD.findall(text))
    return list(dict.fromkeys(out))


def cargo_package(cargo_toml):
    text = projectfile.read_text(cargo_toml, projectfile.MANIFEST)
    if text is None:
        return None
    m = re.search(r"^\[package\][^\[]*?^\s*name\s*=\s*\"([^\"]+)\"", text, MULTILINE | DOTALL)
    return m.group(1).replace("-", "_") if m else None


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


def _parse(lang, path, text):
    if lang == "py":
        return parse_python(text)
    if lang == "js":
        return parse_js(text, os.path.splitext(path)[1].lower())
    if lang == "go":
        return parse_go(text)
    return parse_rust(text)


def _cache_path(cache_dir, root, lang):
    key = zlib.crc32(os.path.abspath(root).encode("utf-8", "replace")) & 0xFFFFFFFF
    return os.path.join(cache_dir, "spatial-%08x-%s.tsv" % (key, lang))


def _q(text):
    """text as it appears inside a JSON string of the cache."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _specs(raw):
    try:
        return json.loads("[%s]" % ",".join(raw))  # one call: far cheaper than one per file
    except ValueError:  # a damaged line: decode one by one
        out = []
        for r in raw:
            try:
                out.append(json.loads(r))
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
            head = json.loads(chunks[0])
            stack = head["stack"]
            ok = head["v"] == CACHE_VERSION and head["root"] == self.root and head["lang"] == self.lang
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
        head = json.dumps(
            {"v": CACHE_VERSION, "root": self.root, "lang": self.lang, "full": self.full, "stack": self.stack},
            separators=(",", ":"),
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
        if st.st_size <= max_bytes:
            text = projectfile.read_text(entry.path, max_bytes)  # swapped for a FIFO since the walk? refused
            if text is not None:
                specs = _parse(self.lang, name, text)
        return "%s\t%s%s" % (name, stamp, json.dumps(specs, ensure_ascii=False, separators=(",", ":")))

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


# --- resolution: who imports the changed file -----------------------------------------------


def _py_importers(changed, files, dirs):
    stem_path = changed[: -len(os.path.splitext(changed)[1])]
    is_init = stem_path.endswith("/__init__") or stem_path == "__init__"
    key = stem_path[: -len("/__init__")] if is_init else stem_path  # 'pkg/core' or 'pkg' for pkg/__init__.py
    key = "" if key == "__init__" else key

    def dotted_under(base):
        if base and not key.startswith(base + "/"):
            return None
        rest = key[len(base) + 1 :] if base else key
        return rest.replace("/", ".") if rest else None

    names = set()
    for base in ("", "src", "lib", "python", "source"):
        name = dotted_under(base)
        if name:
            names.add(name)
    base_of = {}

    def sys_path_base(d):
        # the directory Python puts on sys.path for a file in d: the first non-package ancestor
        if d not in base_of:
            x = d
            while x in dirs and x:
                x = x.rpartition("/")[0]
            base_of[d] = x
        return base_of[d]

    out = []
    for rel, specs in files.items():
        if rel == changed or not specs:
            continue
        fdir = rel.rpartition("/")[0]
        local = set(names)
        extra = dotted_under(sys_path_base(fdir))
        if extra:
            local.add(extra)
        hit = False
        for spec in specs:
            if spec[0] == "i":
                name = spec[1]
                hit = name in local or (is_init and any(name.startswith(n + ".") for n in local))
            elif spec[1] == 0:
                mod = spec[2]
                hit = mod in local or any(mod + "." + n in local for n in spec[3])
            else:
                base = fdir
                for _ in range(spec[1] - 1):
                    base = base.rpartition("/")[0]
                target = "/".join(x for x in (base, spec[2].replace(".", "/")) if x)
                hit = target == key or any(("%s/%s" % (target, n) if target else n) == key for n in spec[3])
            if hit:
                break
        if hit:
            out.append(rel)
    return out


def _strip_jsonc(text):
    text = re.sub(r"(\"(?:\\.|[^\"\\])*\")|//[^\n]*|/\*.*?\*/", lambda m: m.group(1) or "", text, flags=DOTALL)
    return re.sub(r",(\s*[}\]])", r"\1", text)


def _js_aliases(root):
    """[(prefix, wildcard, [target dirs relative to root])] from the root tsconfig/jsconfig."""
    for name in ("tsconfig.json", "jsconfig.json"):
        raw = projectfile.read_bytes(os.path.join(root, name), projectfile.MANIFEST)
        if raw is None:
            continue
        try:
            data = json.loads(_strip_jsonc(raw.decode("utf-8")))
        except ValueError:  # UnicodeDecodeError included
            continue
        opts = data.get("compilerOptions") if isinstance(data, dict) else None
        if not isinstance(opts, dict):
            return []
        base = opts.get("baseUrl") if isinstance(opts.get("baseUrl"), str) else None
        base_rel = os.path.normpath(base).replace("\\", "/") if base else "."
        out = []
        paths = opts.get("paths") if isinstance(opts.get("paths"), dict) else {}
        for pattern, targets in paths.items():
            if not isinstance(targets, list):
                continue
            wild = pattern.endswith("*")
            prefix = pattern[:-1] if wild else pattern
            dirs = [
                os.path.normpath(os.path.join(base_rel, t[:-1] if t.endswith("*") else t)).replace("\\", "/")
                for t in targets
                if isinstance(t, str)
            ]
            out.append((prefix, wild, dirs))
        if base:
            out.append(("", True, [base_rel]))
        return out
    return []


_JS_STRIP_EXT = LazyRe(r"\.(?:[cm]?[jt]sx?|d\.ts)$")


def _js_importers(root, changed, files):
    keys = {changed, _JS_STRIP_EXT.sub("", changed)}
    stem = os.path.basename(_JS_STRIP_EXT.sub("", changed))
    if stem == "index":
        keys.add(os.path.dirname(changed) or ".")
    aliases = None

    def norm(path):
        path = os.path.normpath(path).replace("\\", "/")
        return "." if path in ("", ".") else path

    def matches(path):
        return path in keys or _JS_STRIP_EXT.sub("", path) in keys

    out = []
    for rel, specs in files.items():
        if rel == changed:
            continue
        fdir = rel.rpartition("/")[0]
        for spec in specs:
            if spec.startswith("./") or spec.startswith("../") or spec in (".", ".."):
                if matches(norm(os.path.join(fdir, spec))):
                    out.append(rel)
                    break
                continue
            if spec.startswith("/"):
                continue
            if aliases is None:
                aliases = _js_aliases(root)
            found = False
            for prefix, wild, targets in aliases:
                if (wild and spec.startswith(prefix)) or spec == prefix:
                    rest = spec[len(prefix) :] if wild else ""
                    if any(matches(norm(os.path.join(t, rest) if rest else t)) for t in targets):
                        found = True
                        break
            if found:
                out.append(rel)
                break
    return out


def _go_package(root, changed):
    """The import path of the package of `changed`, from the nearest go.mod (None if there is none)."""
    d = os.path.dirname(os.path.join(root, changed))
    while True:
        gomod = os.path.join(d, "go.mod")
        if os.path.isfile(gomod):
            break
        if os.path.normpath(d) == os.path.normpath(root) or os.path.dirname(d) == d:
            return None
        d = os.path.dirname(d)
    module = go_module(gomod)
    if not module:
        return None
    reldir = os.path.relpath(os.path.dirname(os.path.join(root, changed)), d).replace("\\", "/")
    return module if reldir == "." else module + "/" + reldir


def _go_importers(root, changed, files):
    path = _go_package(root, changed)
    return [rel for rel, specs in files.items() if rel != changed and path in specs] if path else []


def _rs_layout(root, rel, memo):
    """(package dir relative to root, package name, module segments or None) of a Rust file."""
    parts = rel.split("/")
    pkg_dir, pkg_name = None, None
    for i in range(len(parts) - 1, -1, -1):
        d = "/".join(parts[:i])
        if d not in memo:
            cargo = os.path.join(root, d, "Cargo.toml")
            memo[d] = cargo_package(cargo) if os.path.isfile(cargo) else False
        if memo[d] is not False:
            pkg_dir, pkg_name = d, memo[d]
            break
    if pkg_dir is None:
        return None, None, None
    inner = parts[len(pkg_dir.split("/")) if pkg_dir else 0 :]
    if len(inner) < 2 or inner[0] != "src" or inner[1] == "bin":
        return pkg_dir, pkg_name, None  # tests/, examples/, benches/, src/bin: crates of their own
    segs = inner[1:]
    segs[-1] = segs[-1][:-3] if segs[-1].endswith(".rs") else segs[-1]
    if segs[-1] == "mod":
        segs = segs[:-1]
    if len(segs) == 1 and segs[0] in ("lib", "main"):
        segs = []
    return pkg_dir, pkg_name, segs


def _rs_importers(root, changed, files):
    memo = {}
    pkg_dir, pkg_name, segs = _rs_layout(root, changed, memo)
    if not segs:
        return []  # a crate root, or a file outside a crate's module tree
    own = ["crate"] + segs
    named = [pkg_name] + segs if pkg_name else None
    out = []
    for rel, specs in files.items():
        if rel == changed or not specs:
            continue
        fdir_pkg, _, fsegs = _rs_layout(root, rel, memo)
        same_crate = fdir_pkg == pkg_dir and fsegs is not None
        hit = False
        for spec in specs:
            if spec.startswith("mod:"):
                path = ["crate"] + fsegs + [spec[4:]] if same_crate else None
            else:
                path = spec.split("::")
                if path[0] in ("crate", "self", "super"):
                    if not same_crate:
                        continue
                    if path[0] == "self":
                        path = ["crate"] + fsegs + path[1:]
                    elif path[0] == "super":
                        up = fsegs
                        while path and path[0] == "super":
                            up, path = up[:-1], path[1:]
                        path = ["crate"] + up + path
                elif named and path[0] == named[0]:
                    path = ["crate"] + path[1:] if same_crate else path
                    if not same_crate:
                        hit = path[: len(named)] == named
                        if hit:
                            break
                        continue
                else:
                    continue
            if path and path[: len(own)] == own:
                hit = True
                break
        if hit:
            out.append(rel)
    return out


def importers(root, changed, lang, files, dirs=()):
    """Relative paths of the files (among `files`) that import the file `changed` (relative to root)."""
    if lang == "py":
        return sorted(_py_importers(changed, files, set(dirs)))
    if lang == "js":
        return sorted(_js_importers(root, changed, files))
    if lang == "go":
        return sorted(_go_importers(root, changed, files))
    if lang == "rs":
        return sorted(_rs_importers(root, changed, files))
    return []


def _needles(root, changed, lang):
    """Substrings of the cache line of every file that may import `changed`: a conservative filter
    that spares decoding and resolving the others. None: no filter; (): nothing imports it.

    An importer names the changed module's last component, except through the forms that
    refer to it by position, which are matched by a marker instead.
    """
    if lang == "py":
        stem = changed[: -len(os.path.splitext(changed)[1])]
        last = stem.rpartition("/")[2]
        if last == "__init__":
            last = stem.rpartition("/")[0].rpartition("/")[2]
        # `from .. import x` names no module: its empty one is `,"",` in the cached JSON
        return (_q(last), ',"",') if last else None
    if lang == "js":
        base = os.path.basename(_JS_STRIP_EXT.sub("", changed))
        names = [base, os.path.basename(os.path.dirname(changed))] if base == "index" else [base]
        # a spec ending in "." or "/" names a directory by position; an alias may be the whole spec
        aliases = ['"%s"' % _q(prefix) for prefix, _, _ in _js_aliases(root) if prefix]
        return tuple(_q(n) for n in names if n) + ('."', '/"') + tuple(aliases)
    if lang == "go":
        path = _go_package(root, changed)
        return (_q(path),) if path else ()
    segs = _rs_layout(root, changed, {})[2]
    # self::, super:: and `mod x;` are resolved against the importer's own place in the crate
    return (_q(segs[-1]), "self", "super", '"mod:') if segs else ()


def blast_radius(path, budget_ms=200, cache_dir=None, max_bytes=1000000, root=None):
    """How many files of the repository import `path`.

    Returns None when it does not apply (unsupported language, no git repository above the
    file), else {"root", "rel", "lang", "count", "importers" (all, sorted), "complete", "ms"}.
    `complete` is False until a walk has visited every directory (over as many calls as it
    takes); the count is then a lower bound. The whole call, cache included, keeps to budget_ms.
    """
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
