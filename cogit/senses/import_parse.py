"""The import statements of one source file, parsed per language for the Spatial sense.

Split from cogit/senses/imports.py (which scans and caches them): Python, JS/TS, Go and Rust
parsers, each returning the file's specs as plain lists, and the go.mod / Cargo.toml readers
the resolution uses. Standard library only.
"""

import os

from cogit import projectfile

from .text import LazyRe, re, IGNORECASE, MULTILINE, DOTALL


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


def _parse(lang, path, text):
    if lang == "py":
        return parse_python(text)
    if lang == "js":
        return parse_js(text, os.path.splitext(path)[1].lower())
    if lang == "go":
        return parse_go(text)
    return parse_rust(text)
