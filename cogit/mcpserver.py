"""`cogit mcp`: memory the agent can ask, over the Model Context Protocol (stdio).

Hooks push a small digest into the model; this server lets the model pull: search its
memory and history, read a section or an item with its provenance, ask why an item is
there, read the rules' ledger, and propose an addition. It is a thin layer over the same
core functions the CLI calls, so every write goes through the store's one write path
(lock, schema, redaction, provenance) with `Cogit-Source: agent`.

Built on the official Python SDK (`pip install 'cogit[mcp]'`), imported only here, only by
`cogit mcp`. The scope is the one the agent's folder sees (global + its project), fixed
when the server starts: `--folder`, else $CLAUDE_PROJECT_DIR, else the working folder.

Budgets: every answer is JSON text of at most OUTPUT_CHARS characters (cut with a note
saying how to narrow the question); every argument is bounded by the tool's schema and
checked again here. The store is never waited on for long: LOCK_WAIT seconds, then a tool
error the agent can act on ("busy, try again").
"""


import json
import os
from dataclasses import dataclass

from cogit.errors import CogitError
from cogit.paths import Home

OUTPUT_CHARS = 12000
LOCK_WAIT = 3.0
MAX_QUERY = 200
MAX_TEXT = 2000
ITEM_KINDS = ("learning", "heuristic", "avoidance")


@dataclass(frozen=True)
class View:
    """What the agent's folder sees: global memory, plus its project's scope if it has one."""

    home: Home
    project_branch: str | None
    project_name: str | None

    @property
    def branches(self) -> list[str]:
        return ["main"] + ([self.project_branch] if self.project_branch else [])

    @property
    def write_branch(self) -> str:
        return self.project_branch or "main"

    def label(self, branch: str) -> str:
        return "global" if branch == "main" else (self.project_name or branch)


def view_of(home: Home, folder: str) -> View:
    """The scope a folder sees, computed as the hooks compute it (cogit/scope.py): a folder
    in no repository (and without an override) is no project."""
    from cogit.scope import project_of
    from cogit.store.scopes import _overrides

    info = project_of(os.path.abspath(folder), _overrides(home)) if os.path.isdir(folder) else None
    if not info or info.get("source") == "folder":
        return View(home, None, None)
    return View(home, info["branch"], info["name"])


def bounded(value) -> str:
    """JSON text of at most OUTPUT_CHARS characters; a cut says so.

    Answers quote memory (what a pull, a tool or a model wrote): framing tags in them are
    neutralised (cogit/frame.py), so an answer cannot pose as a memory block or the system."""
    from cogit.frame import neutral

    text = neutral(json.dumps(value, ensure_ascii=False, indent=1, default=str))
    if len(text) <= OUTPUT_CHARS:
        return text
    note = (f"\n... cut: the answer was {len(text):,} characters, over the {OUTPUT_CHARS:,} budget. "
            "Narrow it (a section, an item id, a smaller limit).")
    return text[: OUTPUT_CHARS - len(note)] + note


def _text(value: str, name: str, limit: int) -> str:
    value = " ".join(str(value or "").split())
    if not value:
        raise CogitError(f"{name} is empty", hint=f"Give a non-empty {name}.")
    if len(value) > limit:
        raise CogitError(f"{name} is {len(value):,} characters, over the limit of {limit:,}", hint=f"Shorten the {name}.")
    return value


# ---------------------------------------------------------------- the tools' core (plain functions)


def tool_search(view: View, text: str, history: bool = False, limit: int = 20) -> list[dict]:
    from cogit.search import search

    text = _text(text, "query", MAX_QUERY)
    limit = max(1, min(int(limit), 50))
    return search(view.home, text, history=bool(history), branches=view.branches, limit=limit)


def tool_show(view: View, section: str | None = None, item_id: str | None = None) -> dict:
    from cogit.store import memory
    from cogit.store.state.schema import SECTIONS
    from cogit.store.state.documents import ITEM_SECTIONS, section_name

    if item_id:
        for branch in reversed(view.branches):
            item = _find(view, branch, item_id)
            if item:
                return {"scope": view.label(branch), "item": item, "provenance": _provenance(view, branch, item_id)}
        raise CogitError(f"no item {item_id!r} in the memory this folder sees",
                         hint="Find ids with the search tool, or show a section.")
    sections = [section_name(section)] if section else [s for s in SECTIONS if s != "config"]
    out: dict = {}
    for branch in view.branches:
        _, state = memory.read(view.home, branch=branch) if _exists(view, branch) else (None, {})
        for s in sections:
            doc = state.get(s) or {}
            if s in ITEM_SECTIONS:
                out.setdefault(s, []).extend(dict(i, scope=view.label(branch)) for i in doc.get("items") or [])
            elif doc:
                out.setdefault(s, {})[view.label(branch)] = {k: v for k, v in doc.items() if k != "schema_version"}
    return out


def tool_why(view: View, item_id: str, limit: int = 20) -> dict:
    item_id = _text(item_id, "item id", 40)
    for branch in reversed(view.branches):
        history = _provenance(view, branch, item_id, limit=max(1, min(int(limit), 100)))
        if history:
            return {"scope": view.label(branch), "id": item_id, "history": history}
    raise CogitError(f"no history for {item_id!r} in the memory this folder sees",
                     hint="Check the id with the search tool (with history=true for removed items).")


def tool_rules(view: View, rule_id: str | None = None) -> dict | list:
    from cogit.learn.rule_listing import listing, show

    if rule_id:
        row = show(view.home, _text(rule_id, "rule id", 40))
        row.pop("sparkline", None)
        return row
    return listing(view.home, [b for b in view.branches if _exists(view, b)])


def tool_remember(view: View, kind: str, text: str, category: str | None = None, session: str | None = None) -> dict:
    """A learning, heuristic or avoidance the agent proposes: committed with source `agent`,
    or left in the review inbox when config review.auto_accept does not list `agent`."""
    from cogit.store import memory
    from cogit.store.write.transact import transact

    if kind not in ITEM_KINDS:
        raise CogitError(f"unknown kind {kind!r}", hint="kind is one of: " + ", ".join(ITEM_KINDS) + ".")
    text = _text(text, "text", MAX_TEXT)
    if category is not None and (kind != "learning" or category not in memory.CATEGORIES):
        raise CogitError(f"category {category!r} does not apply", hint="Only learnings take a category: " + ", ".join(memory.CATEGORIES) + ".")
    prov = _prov(view, f"{kind}.add", session)
    if not _auto_accepts(view):
        from cogit.learn import inbox

        result = inbox.propose(view.home, [{"section": kind + "s", "text": text, **({"category": category} if category else {})}],
                               prov, branch=view.write_branch)
        return {"status": "pending review", "detail": "A person accepts it with `cogit review` / `cogit accept ID`.", "result": _plain(result)}
    from cogit.store import dedupe

    found = dedupe.Found()  # what memory already holds gains evidence instead (docs/scopes.md "No duplicates")
    apply = dedupe.or_evidence(kind + "s", text, memory.add_item(kind + "s", text, category=category, source="agent"), found)
    result = transact(view.home, prov, apply, branch=view.write_branch, timeout=LOCK_WAIT)
    if result is None:
        return {"status": "already in memory", "scope": view.label(view.write_branch)}
    if found.item is not None:
        return {"status": "already in memory: evidence added", "scope": view.label(view.write_branch), "id": found.item["id"],
                "similarity": round(found.score, 2), "evidence": found.item.get("evidence"), "commit": result.sha}
    return {"status": "remembered", "scope": view.label(view.write_branch), "commit": result.sha, "summary": result.summary,
            "redacted_secrets": result.redacted}


def tool_forget(view: View, item_id: str, session: str | None = None) -> dict:
    from cogit.store import memory
    from cogit.store.write.transact import transact

    config = _config(view)
    if not ((config.get("mcp") or {}).get("allow_forget")):
        raise CogitError("forgetting through MCP is off", hint="A person can run `cogit forget ID`, or allow it on this machine: mcp.allow_forget: true in config.yaml, then `cogit confirm mcp.allow_forget`.")
    item_id = _text(item_id, "item id", 40)
    for branch in reversed(view.branches):
        if _find(view, branch, item_id):
            result = transact(view.home, _prov(view, "item.forget", session), memory.forget(item_id, tombstone=True),
                              branch=branch, timeout=LOCK_WAIT)
            return {"status": "forgotten", "scope": view.label(branch), "commit": result.sha if result else None,
                    "detail": "It stays in history; `cogit revert` brings it back."}
    raise CogitError(f"no item {item_id!r} in the memory this folder sees", hint="Find ids with the search tool.")


def digest_text(view: View) -> str:
    from cogit.store.cache import digest

    path = digest.cache_path(view.home, view.write_branch if view.project_branch and _exists(view, view.project_branch) else "main")
    from cogit.frame import guard

    try:
        return guard(json.loads(path.read_text("utf-8")).get("text", "")) or ""
    except (OSError, ValueError):
        return ""


# ---------------------------------------------------------------- helpers


def _exists(view: View, branch: str) -> bool:
    from cogit.store.git import repo as git
    from cogit.store.git.repo import open_existing

    repo = open_existing(view.home)
    try:
        return git.head(repo, branch) is not None
    finally:
        repo.close()


def _find(view: View, branch: str, item_id: str) -> dict | None:
    from cogit.store import memory
    from cogit.store.state.documents import ITEM_SECTIONS

    if not _exists(view, branch):
        return None
    _, state = memory.read(view.home, branch=branch)
    for section in ITEM_SECTIONS:
        for item in (state.get(section) or {}).get("items") or []:
            if item.get("id") == item_id:
                return dict(item, section=section)
    return None


def _provenance(view: View, branch: str, item_id: str, limit: int = 5) -> list[dict]:
    from cogit.store.history.log import why

    if not _exists(view, branch):
        return []
    out = []
    for entry, changes in why(view.home, item_id, branch=branch)[:limit]:
        e = entry.to_json()
        out.append({"commit": e.get("sha"), "summary": e.get("summary"), "time": e.get("date") or e.get("time"),
                    "trailers": e.get("trailers"), "changes": [c.to_json() for c in changes]})
    return out


def _config(view: View) -> dict:
    from cogit.store import memory

    from cogit import machine_settings

    # mcp.allow_forget and review.auto_accept grant the agent trust: this machine's own values.
    return machine_settings.effective(view.home, memory.read(view.home)[1].get("config") or {})


def _auto_accepts(view: View) -> bool:
    accepted = (_config(view).get("review") or {}).get("auto_accept")
    return True if accepted is None else "agent" in accepted


def _prov(view: View, event: str, session: str | None):
    from cogit.store.git.provenance import Provenance

    agent = os.environ.get("COGIT_AGENT") or "mcp-client"
    return Provenance(event=event, source="agent", agent=agent[:60], session=(session or "-")[:80],
                      project=view.project_name or "global", trigger="mcp")


def _plain(value):
    if hasattr(value, "__dict__"):
        return {k: v for k, v in vars(value).items() if not k.startswith("_")}
    return value


# ---------------------------------------------------------------- the server


def build(home: Home, folder: str):
    """The MCP server over `home` as `folder` sees it (tools and resources)."""
    from typing import Annotated, Literal

    from pydantic import Field

    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from cogit import __version__
    from cogit.store.state.schema import SECTIONS

    view = view_of(home, folder)
    where = f"global memory and the project {view.project_name}" if view.project_name else "global memory"
    server = MCPServer("cogit", version=__version__, instructions=(
        f"cogit is this agent's versioned memory ({where}). Search it before repeating past mistakes; "
        "remember a lesson, heuristic or avoidance when one is learned. Every change is a git commit a person can audit and revert."))

    def call(fn, *args, **kwargs) -> str:
        try:
            return bounded(fn(view, *args, **kwargs))
        except CogitError as e:
            from cogit.frame import neutral

            raise ToolError(neutral(e.message.rstrip(".") + "." + (f" {e.hint}" if e.hint else ""))) from None
        except Exception as e:  # a bug must not kill the server: say so, keep serving
            from cogit.store.git.repo import busy as _busy
            from cogit.store.write.transact import log_note

            if _busy(e):  # contention is normal: the agent can retry
                raise ToolError(f"memory is busy ({_busy(e)}); try again in a few seconds.") from None

            log_note(home, f"mcp: {type(e).__name__}: {e}")
            raise ToolError(f"internal error ({type(e).__name__}); see {home.root}/runtime/logs") from None

    Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY, description="Words to find (case-insensitive).")]
    ItemId = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z]{1,3}-[0-9a-f]{4,16}$", description="An item id such as l-1a2b3c.")]
    Session = Annotated[str | None, Field(max_length=80, description="Your session id, for provenance.")]

    @server.tool(structured_output=False, description="Search memory (every scope this folder sees) for items whose text matches; with history=true also items that were forgotten, pruned or reverted, with the commit that removed them.")
    def search(query: Query, history: bool = False, limit: Annotated[int, Field(ge=1, le=50)] = 20) -> str:
        return call(tool_search, query, history, limit)

    @server.tool(structured_output=False, description="Show memory: one section (focus, heuristics, learnings, avoidances, engagement, tools, reflections, rules) with each item's scope, or one item with its provenance.")
    def show(section: Literal[tuple(s for s in SECTIONS if s != "config")] | None = None,  # type: ignore[valid-type]
             item_id: ItemId | None = None) -> str:
        return call(tool_show, section, item_id)

    @server.tool(structured_output=False, description="Why is an item in memory: every commit that added or changed it, newest first, with who, which session and why.")
    def why(item_id: ItemId, limit: Annotated[int, Field(ge=1, le=100)] = 20) -> str:
        return call(tool_why, item_id, limit)

    @server.tool(structured_output=False, description="Learned rules with their confidence, detections and suppressions; with rule_id, that rule's ledger (each piece of evidence with its session and commit).")
    def rules(rule_id: Annotated[str, Field(max_length=40, pattern=r"^ru-[0-9a-f]{4,16}$")] | None = None) -> str:
        return call(tool_rules, rule_id)

    @server.tool(structured_output=False, description="Remember a learning, heuristic or avoidance (one git commit with Cogit-Source: agent, secrets redacted). It goes to the review inbox instead when the user's config wants agent proposals approved.")
    def remember(kind: Literal["learning", "heuristic", "avoidance"],
                 text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)],
                 category: Literal["insight", "feedback", "pattern", "mistake"] | None = None,
                 session_id: Session = None) -> str:
        return call(tool_remember, kind, text, category, session_id)

    @server.tool(structured_output=False, description="Forget an item by id (it stays in history; a person can revert it). Only when the user's config sets mcp.allow_forget: true.")
    def forget(item_id: ItemId, session_id: Session = None) -> str:
        return call(tool_forget, item_id, session_id)

    @server.resource("cogit://digest", name="digest", mime_type="text/plain",
                     description="The digest injected at session start for this folder's scope.")
    def digest() -> str:
        return digest_text(view)[:OUTPUT_CHARS]

    def section_resource(name: str):
        def read() -> str:
            try:
                return bounded(tool_show(view, name))
            except CogitError as e:
                from cogit.frame import neutral

                return neutral(e.message)
        return read

    for name in SECTIONS:
        if name != "config":
            server.resource(f"cogit://section/{name}", name=name, mime_type="application/json",
                            description=f"The {name} of memory, every scope this folder sees.")(section_resource(name))
    return server


def serve(home: Home, folder: str) -> None:
    """Run the server on stdio until the client closes it."""
    os.environ["COGIT_LOCK_WAIT"] = str(LOCK_WAIT)  # every write this process makes waits at most that long
    build(home, folder).run("stdio")
