"""Resolution for the Spatial sense: which of the scanned files import the changed one.

Split from cogit/senses/imports.py (which scans and caches the specs): per language, the
importers of a file among the parsed specs, and the needles that pre-filter the cache lines.
Standard library only.
"""

import os

from cogit import jsonio, projectfile

from .import_parse import cargo_package, go_module
from .text import LazyRe, re, DOTALL


def _q(text):
    """text as it appears inside a JSON string of the cache."""
    return jsonio.dumps(text)[1:-1]


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
    sys_path_base = sys_path_bases(dirs)

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
            import json  # a JS project's tsconfig: Python edits never come here

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


def sys_path_bases(dirs):
    """d -> the directory Python puts on sys.path for a file in d: its first ancestor that is
    not a package (not in `dirs`), remembered per directory."""
    base_of = {}

    def sys_path_base(d):
        if d not in base_of:
            x = d
            while x in dirs and x:
                x = x.rpartition("/")[0]
            base_of[d] = x
        return base_of[d]

    return sys_path_base
