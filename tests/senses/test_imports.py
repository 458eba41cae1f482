"""Import analysis of the Spatial sense: parsers per language, resolution in real temp git repos,
the cache, and the time bound."""

import ast
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from cogit.senses import import_parse, import_resolve, imports


def make_repo(root, files, git=True):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if git:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    return root


def radius(root, rel, **kw):
    kw.setdefault("budget_ms", 5000)
    r = imports.blast_radius(str(root / rel), **kw)
    if r and r["complete"] and kw["budget_ms"] >= 1000:  # a budget that covers the repository in one call
        # the answer, filtered by _needles, is what resolving every file of the repository gives
        files, dirs, complete = imports.scan(r["root"], r["lang"], time.perf_counter() + 60)
        assert complete and import_resolve.importers(r["root"], rel, r["lang"], files, dirs) == r["importers"]
    return r


# --- Python -------------------------------------------------------------------------------

TRICKY_PY = '''"""Module docstring.

import not_an_import
from fake import thing
"""
import os
import sys as system, json
from . import sibling
from .pkg.mod import (
    a,  # first
    b as bee,
)
from ..up import *
from x.y import \\
    z
# import commented_out
s = "import in_a_string"
t = \'\'\'
from also_not import this
\'\'\'
def f():
    import inner.module
    if True:
        from cond import c
try:
    import maybe
except ImportError:
    maybe = None
'''


def ast_specs(text):
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out.extend(["i", a.name] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append(["f", node.level, node.module or "", [a.name for a in node.names if a.name != "*"]])
    return sorted(map(repr, out))


def test_python_parser_agrees_with_ast_on_tricky_source():
    assert sorted(map(repr, import_parse.parse_python(TRICKY_PY))) == ast_specs(TRICKY_PY)


def test_python_parser_agrees_with_ast_on_the_cogit_sources():
    root = os.path.join(os.path.dirname(__file__), "..", "..", "cogit")
    checked = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith(".py"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    text = f.read()
                assert sorted(map(repr, import_parse.parse_python(text))) == ast_specs(text), name
                checked += 1
    assert checked >= 10


def test_python_importers_counts_real_imports_only(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "X = 1\n",
        "pkg/core_utils.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/core.py": "",
        "pkg/a.py": "from . import core\n",
        "pkg/sub/b.py": "from ..core import X\n",
        "pkg/c.py": "import pkg.core as c\n",
        "tests/test_core.py": "from pkg.core import X\n",
        "run.py": "from pkg import core\n",
        # decoys
        "pkg/d.py": "from pkg.core_utils import X\n",
        "pkg/sub/e.py": "from . import core\n",  # pkg/sub/core.py
        "pkg/f.py": '"""\nimport pkg.core\n"""\n# from pkg import core\nS = "pkg.core"\n',
        "other/core.py": "",
        "other/g.py": "import core\n",  # other/core.py via the script directory, not pkg/core.py
    }
    make_repo(tmp_path, files)
    r = radius(tmp_path, "pkg/core.py")
    assert r["complete"] and r["importers"] == ["pkg/a.py", "pkg/c.py", "pkg/sub/b.py", "run.py", "tests/test_core.py"]
    assert radius(tmp_path, "other/core.py")["importers"] == ["other/g.py"]
    assert radius(tmp_path, "pkg/sub/core.py")["importers"] == ["pkg/sub/e.py"]


def test_python_src_layout_and_package_init(tmp_path):
    files = {
        "src/app/__init__.py": "from .models import Model\n",
        "src/app/models.py": "",
        "src/app/views.py": "from app.models import Model\nimport app\n",
        "tests/test_models.py": "from app import models\n",
        "tests/test_app.py": "import app\nfrom app import views\n",
    }
    make_repo(tmp_path, files)
    assert radius(tmp_path, "src/app/models.py")["importers"] == ["src/app/__init__.py", "src/app/views.py", "tests/test_models.py"]
    assert radius(tmp_path, "src/app/__init__.py")["importers"] == ["src/app/views.py", "tests/test_app.py", "tests/test_models.py"]


# --- JavaScript / TypeScript -----------------------------------------------------------------

TRICKY_JS = """
import a from './a';
import { b, c as d } from "../lib/b.js";
import * as ns from './ns'
import './side-effect';
export { x } from './x';
export * from './star';
import type { T } from './types';
const e = require('./e');
const f = await import('./f');
// import g from './g'
/* import h from './h' */
const s = "import i from './i'";
const t = `require('./j')`;
obj.require('./k');
import {
  l,
  m,
} from './lm';
const u = 'it\\'s fine'; import v from './v';
"""


def test_js_parser_finds_every_form_and_skips_comments_and_strings():
    assert import_parse.parse_js(TRICKY_JS) == [
        "./a", "../lib/b.js", "./ns", "./side-effect", "./x", "./star", "./types", "./e", "./f", "./lm", "./v"]


def test_js_parser_reads_vue_script_blocks():
    vue = "<template><p>don't {{ x }}</p></template>\n<script setup lang='ts'>\nimport Child from './Child.vue'\n</script>\n"
    assert import_parse.parse_js(vue, ".vue") == ["./Child.vue"]


def test_js_importers_resolve_relative_index_extensionless_and_tsconfig_paths(tmp_path):
    files = {
        "tsconfig.json": '{\n  // comment\n  "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]},},\n}\n',
        "src/util/index.ts": "export const u = 1;\n",
        "src/utility.ts": "export const v = 1;\n",
        "src/a.ts": "import { u } from './util';\n",
        "src/b.tsx": "import { u } from '../src/util/index';\n",
        "src/c.mjs": "import { u } from './util/index.js';\n",
        "src/d.ts": "import { u } from '@/util';\n",
        "src/e.js": "const { u } = require('./util/index.ts');\n",
        "src/f.ts": "import { v } from './utility';\n",  # decoy
        "src/g.ts": "// import { u } from './util';\nconst s = \"./util\";\n",  # decoy
        "node_modules/lib/index.js": "require('../../src/util');\n",  # skipped directory
    }
    make_repo(tmp_path, files)
    r = radius(tmp_path, "src/util/index.ts")
    assert r["importers"] == ["src/a.ts", "src/b.tsx", "src/c.mjs", "src/d.ts", "src/e.js"]
    assert radius(tmp_path, "src/utility.ts")["importers"] == ["src/f.ts"]


def test_importers_that_name_the_file_by_position_only_are_found(tmp_path):
    # none of these importers spells the changed module's name: the cache prefilter must keep them
    files = {
        "tsconfig.json": '{"compilerOptions": {"paths": {"@util": ["web/util/index.ts"]}}}',
        "web/util/index.ts": "export const u = 1;\n",
        "web/util/inner/a.ts": "import { u } from '..';\n",
        "web/b.ts": "import { u } from '@util';\n",
        "pkg/__init__.py": "X = 1\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/m.py": "from .. import X\n",
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/lib.rs": "pub mod net;\n",
        "src/net.rs": "pub mod tcp;\n",
        "src/net/tcp.rs": "use super::Conn;\n",
    }
    make_repo(tmp_path, files)
    assert radius(tmp_path, "web/util/index.ts")["importers"] == ["web/b.ts", "web/util/inner/a.ts"]
    assert radius(tmp_path, "pkg/__init__.py")["importers"] == ["pkg/sub/m.py"]
    assert radius(tmp_path, "src/net.rs")["importers"] == ["src/lib.rs", "src/net/tcp.rs"]


# --- Go ------------------------------------------------------------------------------------


def test_go_parser_reads_single_and_grouped_imports_only_in_the_header():
    src = (
        'package main\n\n// import "fake/comment"\nimport "fmt"\nimport (\n\t"os"\n\tst "example.com/app/internal/store"\n'
        '\t_ "example.com/app/plugins" // side effect\n\t. "example.com/app/dot"\n)\n\n'
        'func main() {\n\tfmt.Println("import \\"not/this\\"")\n}\n'
    )
    assert import_parse.parse_go(src) == ["os", "example.com/app/internal/store", "example.com/app/plugins",
                                     "example.com/app/dot", "fmt"]


def test_go_importers_use_the_module_path_of_go_mod(tmp_path):
    files = {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "internal/store/store.go": "package store\n",
        "internal/store/util.go": "package store\n",
        "internal/store/store_test.go": 'package store_test\n\nimport "example.com/app/internal/store"\n',
        "cmd/app/main.go": 'package main\n\nimport "example.com/app/internal/store"\n',
        "api/h.go": 'package api\n\nimport (\n\t"fmt"\n\tst "example.com/app/internal/store"\n)\n',
        "api/decoy.go": 'package api\n\nimport "example.com/app/internal/storetest"\n// "example.com/app/internal/store"\n',
    }
    make_repo(tmp_path, files)
    r = radius(tmp_path, "internal/store/store.go")
    assert r["importers"] == ["api/h.go", "cmd/app/main.go", "internal/store/store_test.go"]


# --- Rust ----------------------------------------------------------------------------------


def test_rust_parser_expands_use_trees():
    src = (
        "use crate::net::{client::{self, Client as C}, server};\nuse std::io;\npub(crate) use super::x::*;\n"
        "mod util;\n// use crate::fake;\nlet s = \"crate::net::fake\";\nfn f() { crate::jobs::run(); }\n"
    )
    got = import_parse.parse_rust(src)
    assert "crate::net::client" in got and "crate::net::client::Client" in got and "crate::net::server" in got
    assert "std::io" in got and "super::x" in got and "mod:util" in got and "crate::jobs::run" in got
    assert not any("fake" in g for g in got)


def test_rust_importers_follow_crate_super_self_mod_and_package_name(tmp_path):
    files = {
        "Cargo.toml": '[package]\nname = "my-app"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1"\n',
        "src/lib.rs": "pub mod net;\npub mod api;\n",
        "src/net/mod.rs": "pub mod client;\npub mod server;\n",
        "src/net/client.rs": "pub struct Client;\n",
        "src/net/server.rs": "use super::client;\n",
        "src/api.rs": "use crate::net::client::Client;\n",
        "src/service.rs": "use crate::net::{client::{self, Client}, server};\n",
        "src/jobs.rs": "pub fn run() { crate::net::client::connect(); }\n",
        "tests/integration.rs": "use my_app::net::client::Client;\n",
        # decoys
        "src/other.rs": "use crate::net::server;\n// use crate::net::client;\nconst S: &str = \"crate::net::client\";\n",
        "src/clientele.rs": "use crate::net::clientele;\n",
    }
    make_repo(tmp_path, files)
    r = radius(tmp_path, "src/net/client.rs")
    assert r["importers"] == ["src/api.rs", "src/jobs.rs", "src/net/mod.rs", "src/net/server.rs", "src/service.rs",
                              "tests/integration.rs"]
    assert radius(tmp_path, "src/lib.rs")["count"] == 0  # a crate root is not a module anyone imports


# --- repository, cache, time bound ---------------------------------------------------------


def test_outside_a_git_repository_there_is_no_answer(tmp_path):
    make_repo(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": "", "a.py": "import pkg.core\n"}, git=False)
    assert imports.find_repo_root(str(tmp_path / "pkg" / "core.py")) is None
    assert radius(tmp_path, "pkg/core.py") is None


def test_repo_root_comes_from_the_file_system_not_git_variables(tmp_path, monkeypatch):
    make_repo(tmp_path / "r", {"m.py": "", "a.py": "import m\n"})
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere" / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path / "elsewhere"))
    assert imports.find_repo_root(str(tmp_path / "r" / "m.py")) == str(tmp_path / "r")
    # a worktree or submodule has a .git *file*
    make_repo(tmp_path / "w", {"m.py": ""}, git=False)
    (tmp_path / "w" / ".git").write_text("gitdir: /somewhere/.git/worktrees/w\n")
    assert imports.find_repo_root(str(tmp_path / "w" / "m.py")) == str(tmp_path / "w")


def test_unsupported_files_have_no_answer(tmp_path):
    make_repo(tmp_path, {"README.md": "", "notes.ipynb": "{}"})
    assert radius(tmp_path, "README.md") is None and radius(tmp_path, "notes.ipynb") is None


def test_cache_is_keyed_by_mtime_and_reused(tmp_path):
    repo = make_repo(tmp_path / "r", {"m.py": "", "a.py": "import m\n", "b.py": "import os\n"})
    cache = tmp_path / "cache"
    assert radius(repo, "m.py", cache_dir=str(cache))["importers"] == ["a.py"]
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].name.startswith("spatial-") and files[0].name.endswith("-py.tsv")
    # a changed file is parsed again; an unchanged one is taken from the cache
    (repo / "b.py").write_text("import m\n")
    os.utime(repo / "b.py", ns=(time.time_ns(), time.time_ns() + 10_000_000))
    assert radius(repo, "m.py", cache_dir=str(cache))["importers"] == ["a.py", "b.py"]
    (repo / "a.py").unlink()
    assert radius(repo, "m.py", cache_dir=str(cache))["importers"] == ["b.py"]


def test_a_corrupt_cache_is_ignored(tmp_path):
    repo = make_repo(tmp_path / "r", {"m.py": "", "a.py": "import m\n"})
    cache = tmp_path / "cache"
    radius(repo, "m.py", cache_dir=str(cache))
    next(cache.iterdir()).write_text("{not json")
    assert radius(repo, "m.py", cache_dir=str(cache))["importers"] == ["a.py"]


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    files = {"core/__init__.py": "", "core/base.py": "X = 1\n"}
    body = "\n".join("def f%d(x):\n    return x + %d\n" % (i, i) for i in range(40))
    for d in range(60):
        files["pkg%d/__init__.py" % d] = ""
        for i in range(50):
            head = "from core.base import X\n" if i % 10 == 0 else "import os\n"
            files["pkg%d/m%d.py" % (d, i)] = head + body
    return make_repo(root, files)


def test_scan_stops_at_its_budget_and_says_so(big_repo, tmp_path):
    start = time.perf_counter()
    r = radius(big_repo, "core/base.py", budget_ms=5, cache_dir=str(tmp_path / "c"))
    elapsed = (time.perf_counter() - start) * 1000
    assert r["complete"] is False
    assert r["count"] < 300
    assert elapsed < 5 + 60, elapsed  # the deadline is checked before every file


def test_default_budget_is_200ms_and_the_cache_completes_the_scan(big_repo, tmp_path):
    cache = str(tmp_path / "c")
    results = []
    for _ in range(20):
        start = time.perf_counter()
        r = radius(big_repo, "core/base.py", budget_ms=200, cache_dir=cache)
        results.append(r)
        assert (time.perf_counter() - start) * 1000 < 200 + 80
        if r["complete"]:
            break
    assert results[-1]["complete"] and results[-1]["count"] == 300  # 60 packages x 5 importers
    # warm: every file comes from the cache
    start = time.perf_counter()
    assert radius(big_repo, "core/base.py", budget_ms=200, cache_dir=cache)["count"] == 300
    assert (time.perf_counter() - start) * 1000 < 200


def make_wide(root, dirs=20, per_dir=100, big_dir=1000):
    """A repository of tiny files, one in ten importing core/base.py; one directory is much
    bigger than the rest, so that a round also stops in the middle of a directory."""
    files = {"core/__init__.py": "", "core/base.py": "X = 1\n"}
    sizes = [("d%02d" % d, per_dir) for d in range(dirs)] + [("zbig", big_dir)]
    for d, n in sizes:
        for i in range(n):
            files["%s/m%d.py" % (d, i)] = "from core.base import X\n" if i % 10 == 0 else "import os\n"
    return make_repo(root, files), sum(n // 10 for _, n in sizes)


def rmtree(path):
    for p in path.iterdir():
        p.unlink()
    path.rmdir()


def cached_names(cache):
    """{directory: names of its cached files} from the cache file (see imports._Index)."""
    chunks = next(cache.iterdir()).read_text().split("\n\t")[1:]
    return {c.partition("\n")[0]: {line.split("\t")[0] for line in c.partition("\n")[2].split("\n")} for c in chunks}


def converge(repo, cache, budget_ms, rounds=300):
    """Calls blast_radius until the count is complete: [(result, wall ms)]."""
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        r = radius(repo, "core/base.py", budget_ms=budget_ms, cache_dir=str(cache))
        out.append((r, (time.perf_counter() - start) * 1000))
        if r["complete"]:
            break
    return out


class StepClock:
    """A perf_counter that moves 20 µs a reading: a budget becomes a number of files and
    directories per call, whatever the speed of the machine."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 20e-6
        return self.now


@pytest.fixture(scope="module")
def wide_repo(tmp_path_factory):
    return make_wide(tmp_path_factory.mktemp("wide"))


def test_the_walk_resumes_across_calls_until_the_count_is_complete(tmp_path, monkeypatch):
    monkeypatch.setattr(imports, "time", StepClock())  # 10 ms: about 370 files a call
    repo, expected = make_wide(tmp_path / "r")  # 3,021 files
    results = converge(repo, tmp_path / "c", budget_ms=10)
    assert results[-1][0]["complete"] and results[-1][0]["count"] == expected == 300
    assert len(results) >= 8  # each call went on from where the last stopped
    counts = [r["count"] for r, _ in results]
    assert counts == sorted(counts) and all(not r["complete"] for r, _ in results[:-1])
    # the walk keeps going round: a new importer, a deleted one and a deleted directory are seen
    (repo / "d00" / "new.py").write_text("import core.base\n")
    (repo / "zbig" / "m990.py").unlink()
    rmtree(repo / "d05")
    seen = [radius(repo, "core/base.py", budget_ms=10, cache_dir=str(tmp_path / "c")) for _ in range(25)]
    assert all(r["complete"] for r in seen) and seen[-1]["count"] == expected + 1 - 1 - 10
    assert "d05" not in cached_names(tmp_path / "c") and "m990.py" not in cached_names(tmp_path / "c")["zbig"]


def test_the_walk_resumes_in_real_time(wide_repo, tmp_path):
    repo, expected = wide_repo
    started = time.perf_counter()
    results = converge(repo, tmp_path / "c", budget_ms=20)
    assert results[-1][0]["complete"] and results[-1][0]["count"] == expected
    assert len(results) >= 2 and time.perf_counter() - started < 10


def test_deleted_files_and_directories_drop_out_of_the_cache(tmp_path):
    repo, expected = make_wide(tmp_path / "r", dirs=6, per_dir=50, big_dir=300)
    cache = tmp_path / "c"
    assert radius(repo, "core/base.py", cache_dir=str(cache))["count"] == expected == 60
    (repo / "d00" / "m0.py").unlink()  # an importer
    rmtree(repo / "d05")
    r = radius(repo, "core/base.py", cache_dir=str(cache))
    assert r["complete"] and r["count"] == expected - 6
    cached = cached_names(cache)
    assert "m0.py" not in cached["d00"] and "m1.py" in cached["d00"] and "d05" not in cached
    # a directory deleted while a walk still has it to visit
    with pytest.MonkeyPatch.context() as m:
        m.setattr(imports, "time", StepClock())
        radius(repo, "core/base.py", budget_ms=2, cache_dir=str(cache))  # a new walk, stopped early
    head = json.loads(next(cache.iterdir()).read_text().partition("\n")[0])
    assert ["zbig", None] in head["stack"]
    rmtree(repo / "zbig")
    r = radius(repo, "core/base.py", cache_dir=str(cache))
    assert r["complete"] and r["count"] == expected - 6 - 30 and "zbig" not in cached_names(cache)


# --- the reverse index the detached builder writes (cogit/senses/import_reverse.py) ------------


def _every_answer_agrees(root, cache):
    """For every Python file: the prebuilt reverse index's answer is the scan's."""
    from cogit.senses import import_index

    import_index.build(str(root), str(cache))
    checked = 0
    for path in sorted(root.rglob("*.py")):
        if ".git" in path.parts:
            continue
        scanned = imports.blast_radius(str(path), budget_ms=60000, cache_dir=str(cache / "scan"))
        read = import_index.read_radius(str(path), str(cache))
        assert read["built"] and read["importers"] == scanned["importers"], path
        checked += 1
    return checked


def test_the_reverse_index_agrees_with_the_scan_on_every_file(tmp_path):
    files = {
        "pkg/__init__.py": "", "pkg/core.py": "class Engine: pass\n", "pkg/sub/__init__.py": "from .. import core\n",
        "pkg/sub/b.py": "from ..core import Engine\nfrom . import c\n", "pkg/sub/c.py": "import pkg.sub.b as b\n",
        "src/app/__init__.py": "", "src/app/main.py": "from app import util\nimport app.util\n",
        "src/app/util.py": "from pkg import core, missing\n", "tests/test_core.py": "from pkg.core import Engine\nimport helper\n",
        "tests/helper.py": "import os\n", "cli.py": "import pkg.sub.c\nfrom pkg.sub import *\n", "__init__.py": "",
        "top.py": "from . import cli\n", "lib/m.py": "import n\n", "lib/n.py": "from m import x\n",
        # a module beside a package of its name: `import pkg.sub.c` imports the package, not it
        "pkg/sub.py": "",
        # inside a package, `import c` is not the sibling pkg/sub/c.py (Python 3: no implicit relative)
        "pkg/sub/d.py": "import c\n",
    }
    make_repo(tmp_path / "r", files)
    assert _every_answer_agrees(tmp_path / "r", tmp_path / "c") == len(files)


def test_the_reverse_index_agrees_on_a_generated_project(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import hooks_real

    hooks_real.make_project(tmp_path / "p", modules=120)
    assert _every_answer_agrees(tmp_path / "p", tmp_path / "c") > 120
