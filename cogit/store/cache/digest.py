"""The digest cache: one small JSON file per scope under runtime/digest/, rewritten after
each commit by the write path, read by the hooks with the standard library alone.

It holds what cogit/digest/assemble.py compiled from the scope's state, the commit it was
compiled from, and a JSON snapshot of the settings the hooks need.
"""

from __future__ import annotations

import json
from pathlib import Path

from cogit.digest.assemble import compile_text, fresh
from cogit.domain import effect
from cogit.paths import Home, safe_name
from cogit.store.git import repo as git
from cogit.store.state import yamlio


def hook_settings(config) -> dict:
    """The part of config that the hooks read, as plain JSON: never a setting that acts
    (`sync.auto`...): the hooks take those from this machine's own file alone
    (cogit/machine_settings.py, classified in cogit/domain/settings.py)."""
    from cogit.domain.settings import without_local

    config = without_local(yamlio.plain(config or {}))
    return {k: config.get(k, {}) for k in ("digest", "hooks", "learning", "senses", "sync", "projects", "caps", "redaction")}


def cache_path(home: Home, branch: str) -> Path:
    return home.digests / f"{safe_name(branch.replace('/', '--'))}.json"


def _with_scope_evidence(repo, main_state: dict, known: dict) -> dict:
    """main's state whose global rules also count their evidence from project scopes
    (cogit/domain/ledger.py `combine`): what a rule earned in a project keeps it shown."""
    from cogit.domain import ledger
    from cogit.store.state import loader
    from cogit.store.state.documents import filename

    docs = []
    for b in git.branches(repo):
        if not b.startswith("project/"):
            continue
        if b in known:
            docs.append(known[b].get("rules") or {})
            continue
        blob = git.blob_ids(repo, git.head(repo, b)).get(filename("rules"))
        if blob:
            docs.append(loader.parse_blob(repo, "rules", blob))
    caches = ledger.scope_caches(docs)
    if not caches:
        return main_state
    rules = dict(main_state.get("rules") or {})
    rules["items"] = [ledger.combine(r, caches.get(r.get("id"), [])) for r in rules.get("items") or []]
    return dict(main_state, rules=rules)


def refresh(home: Home, repo, branch: str, known: dict | None = None) -> None:
    """Recompile the cached digest of `branch` (and of every project when main changed).

    `known` maps branch -> state already in memory (the write path passes what it
    just committed), so nothing is read twice."""
    from cogit.store.state.loader import load_plain as _load

    known = known or {}

    def load_state(repo, sha, _branch=None):
        return known[_branch] if _branch in known else _load(repo, sha)

    targets = [branch]
    if branch == git.MAIN or ((known.get(branch) or {}).get("rules") or {}).get("global_evidence"):
        # main changed, or a project's evidence of global rules did: every scope shows them.
        targets = [git.MAIN] + [b for b in git.branches(repo) if b.startswith("project/")]
    main_sha = git.head(repo, git.MAIN)
    main_state = _with_scope_evidence(repo, load_state(repo, main_sha, git.MAIN), known)
    for target in targets:
        scopes = [("global", main_state)]
        heads = {git.MAIN: main_sha}
        if target != git.MAIN:
            sha = git.head(repo, target)
            scopes.append((target, load_state(repo, sha, target)))
            heads[target] = sha
        config = main_state.get("config")  # settings rule from main, in every scope
        compiled = compile_text(scopes, config)
        compiled.update(branch=target, heads=heads, settings=hook_settings(config), **fresh(scopes, config))
        compiled["withhold"] = effect.candidates(scopes, config)  # which rules the hook may withhold (hooks/withhold.py)
        path = cache_path(home, target)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        git.write_atomic(path, json.dumps(compiled, ensure_ascii=False).encode("utf-8"), durable=False)
        from cogit.store.cache import reflexes  # the rules a hook gives at the moment (cogit/hooks/reflex.py)

        reflexes.write(path, scopes, config, heads)
