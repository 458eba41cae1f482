"""The languages whose imports the spatial sense can parse, by file extension.

Apart from cogit/senses/imports.py so that a write of any other file (a fixture, a doc)
is turned away without importing the parser and the modules it needs (`re`, `json`, `zlib`).
"""

import os

LANG_EXT = {
    ".py": "py",
    ".pyi": "py",
    ".js": "js",
    ".jsx": "js",
    ".ts": "js",
    ".tsx": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".mts": "js",
    ".cts": "js",
    ".vue": "js",
    ".svelte": "js",
    ".astro": "js",
    ".go": "go",
    ".rs": "rs",
}


def lang_of(path):
    name = path.lower()
    if name.endswith(".d.ts"):
        return "js"
    return LANG_EXT.get(os.path.splitext(name)[1])
