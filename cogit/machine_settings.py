"""Settings that act are this machine's own.

config.yaml is memory: it syncs, and a remote anyone with a token can push to decides
what it holds. So a setting that runs a program, opens a connection, decides when those
happen, or grants trust (the reflection command and endpoint, the auto triggers,
`sync.auto`, `review.auto_accept`, ...) takes effect only from this machine:

- `$COGIT_HOME/machine-settings.json`, beside the repository and never in it (never
  committed, never synced), holds this machine's values of those settings (JSON, so that
  the hooks read it with the standard library);
- a value of such a setting in config.yaml that differs from this machine's waits:
  `cogit doctor` lists it with the command that confirms it (`cogit confirm KEY
  --expect HASH`), which copies it into machine-settings.json.

Who committed a value never counts: a committer identity is printed in every commit a
machine pushes, and anyone can copy it.

`SETTINGS` classifies every setting of schemas/config.schema.json (a test fails for one
that is missing): SHARED settings sync and take effect everywhere (caps, budgets,
thresholds of what is learned and shown); LOCAL ones take effect only from this machine.

The hooks read this machine's `sync` settings through cogit.local_settings.py (standard
library only); this module is the CLI's view.
"""

import os

from cogit.local_settings import FILE, MAX_BYTES, file_path, hook_read  # noqa: F401 (the hooks' view, stdlib only)
from cogit.domain.settings import LOCAL, LOCAL_KEYS, SETTINGS, SHARED, drop as _drop, lookup, without_local  # noqa: F401 (the table lives in the domain)


def _put(doc: dict, key: str, value) -> None:
    parts = key.split(".")
    node = doc
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[parts[-1]] = value


# --------------------------------------------------------------------------- the hooks' view


# --------------------------------------------------------------------------- the CLI's view


def load(home) -> dict:
    """machine-settings.json, validated: an error names the file, the line or the field."""
    import json

    from cogit.errors import InvalidState

    path = file_path(home.top)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise InvalidState(f"{path} cannot be read: {e.strerror}", hint="Fix its permissions, or remove it (this machine's settings go back to the defaults).") from None
    if len(data) > MAX_BYTES:
        raise InvalidState(f"{path} is over {MAX_BYTES // 1024} KiB; it is not read",
                           hint="It holds a handful of settings: remove what is not one, or the file.")
    try:
        doc = json.loads(data.decode("utf-8")) if data.strip() else {}
    except UnicodeDecodeError:
        raise InvalidState(f"{path} is not UTF-8 text", hint="Rewrite it as JSON, or remove it.") from None
    except ValueError as e:
        raise InvalidState(f"{path}:{e.lineno}: not JSON ({e.msg})", hint="Fix that line (or remove the file).") from None
    problem = _problem(doc)
    if problem:
        raise InvalidState(f"{path}: {problem}",
                           hint="It holds only this machine's settings (see `cogit doctor`); fix the field or remove it.")
    return doc


def _problem(doc) -> str | None:
    """Why `doc` is not a valid machine-settings document (None if it is)."""
    from jsonschema import Draft202012Validator

    from cogit.store.state.schema import schema

    if not isinstance(doc, dict):
        return "not a JSON object"
    for key in _leaves(doc):
        if key not in LOCAL_KEYS:
            kind = SETTINGS.get(key, (None,))[0]
            return (f"{key} is a synced setting; set it in config.yaml (`cogit edit config`)" if kind == SHARED
                    else f"{key} is not a setting of this machine (known: {', '.join(LOCAL_KEYS)})")
    full = dict(doc, schema_version=1)
    errors = sorted(Draft202012Validator(schema("config")).iter_errors(full), key=lambda e: [str(p) for p in e.path])
    if errors:
        e = errors[0]
        return f"$.{'.'.join(str(p) for p in e.path)}: {e.message[:200]}"
    return None


def _leaves(doc: dict, prefix: str = "") -> list[str]:
    out = []
    for k, v in doc.items():
        key = prefix + str(k)
        if isinstance(v, dict) and key not in SETTINGS:
            out += _leaves(v, key + ".")
        else:
            out.append(key)
    return out


def default_value(key: str):
    """A LOCAL setting's value when this machine sets none: what the consumer does without it
    (the template's null/false/defaults, as if config.yaml said nothing)."""
    from cogit.store.state.documents import default_doc

    return lookup(default_doc("config"), key)


def effective(home, config) -> dict:
    """The settings in effect here: `config` (main's config.yaml) with every LOCAL setting
    taken from this machine's file, or left unset (the built-in default). Never written
    back to memory: it holds this machine's own values."""
    local = local_values(home, config)
    out = without_local(config)
    for key in LOCAL_KEYS:
        value = lookup(local, key, _MISSING)
        if value is not _MISSING:
            _put(out, key, value)
    return out


_MISSING = object()


def local_values(home, config=None) -> dict:
    """machine-settings.json, after the one-time migration of the old trust file."""
    doc = load(home)
    if config is not None:
        doc = _migrate(home, config, doc)
    return doc


def _legacy_trusted(home):
    return home.runtime / "reflect-trusted.json"


def _migrate(home, config, doc: dict) -> dict:
    """runtime/reflect-trusted.json (before machine-settings.json) listed the commands a
    person ran here by hand (`cogit reflect --command`): proof that they are this machine's
    own. If config.yaml's reflect.command is one of them, it moves to machine-settings.json;
    every other acting value of config.yaml waits for confirmation. The old file is renamed
    so that this happens once."""
    import json

    legacy = _legacy_trusted(home)
    try:
        known = json.loads(legacy.read_text("utf-8"))
    except FileNotFoundError:
        return doc
    except (OSError, ValueError):
        known = []
    command = lookup(config, "reflect.command")
    if (isinstance(known, list) and isinstance(command, str) and command in known
            and lookup(doc, "reflect.command", _MISSING) is _MISSING):
        doc = dict(doc)
        doc.setdefault("reflect", {})
        doc["reflect"] = dict(doc["reflect"], command=command)
        save(home, doc)
    try:
        os.replace(legacy, str(legacy) + ".migrated")
    except OSError:
        pass
    return doc


def save(home, doc: dict) -> None:
    import json

    from cogit.store.git import repo as git

    problem = _problem(doc)
    if problem:  # never write what `load` would refuse
        from cogit.errors import InvalidState

        raise InvalidState(f"{file_path(home.top)}: {problem}")
    home.root.mkdir(mode=0o700, parents=True, exist_ok=True)
    git.write_atomic(home.root / FILE, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"), durable=True)


# --------------------------------------------------------------------------- what waits


def value_hash(value) -> str:
    """A short fingerprint of a value: `cogit confirm --expect` takes exactly what you saw."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()[:10]


def pending(home, config) -> list[dict]:
    """Acting values of config.yaml that are not in effect here: each with this machine's
    value, the synced one, and the command that confirms it."""
    import shlex

    local = local_values(home, config)
    declined = _declined(home)
    out = []
    for key in LOCAL_KEYS:
        synced = lookup(config, key, _MISSING)
        if synced is _MISSING or synced == default_value(key):
            continue  # config.yaml asks for nothing (this machine's own value, if any, stays)
        here = lookup(local, key, _MISSING)
        current = default_value(key) if here is _MISSING else here
        h = value_hash(synced)
        if synced == current or declined.get(key) == h:
            continue
        out.append({"key": key, "synced": synced, "here": current, "why": SETTINGS[key][1], "hash": h,
                    "command": f"cogit confirm {shlex.quote(key)} --expect {h}",
                    "decline": f"cogit confirm {shlex.quote(key)} --expect {h} --decline"})
    return out


def _declined_path(home):
    return home.runtime / "declined-settings.json"


def _declined(home) -> dict:
    """{key: fingerprint} of synced values a person here said no to (`cogit confirm --decline`):
    they stop waiting; a different value waits again."""
    import json

    try:
        doc = json.loads(_declined_path(home).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in doc.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(doc, dict) else {}


def confirm(home, key: str, expect: str | None = None, decline: bool = False) -> dict:
    """Make config.yaml's value of `key` this machine's own (machine-settings.json); with
    `decline`, keep this machine's value and stop listing that synced value as waiting."""
    from cogit.errors import UsageError
    from cogit.store.memory import open_existing
    from cogit.store.write.transact import main_config

    if key not in SETTINGS:
        raise UsageError(f"no setting {key!r}", hint="`cogit doctor` lists the settings that wait, each with its command.")
    if SETTINGS[key][0] != LOCAL:
        raise UsageError(f"{key} is a synced setting: it takes effect from config.yaml as it is",
                         hint="Nothing to confirm; `cogit doctor` lists the settings that wait.")
    repo = open_existing(home)
    try:
        config = main_config(repo)
    finally:
        repo.close()
    waiting = {p["key"]: p for p in pending(home, config)}
    if key not in waiting:
        raise UsageError(f"{key} does not wait: config.yaml's value is the one in effect here",
                         hint="`cogit doctor` lists the settings that wait, each with its command.")
    p = waiting[key]
    if expect is not None and expect != p["hash"]:
        raise UsageError(f"{key} in config.yaml changed since you looked (now {show(p['synced'])}, fingerprint {p['hash']})",
                         hint=f"Look again (`cogit doctor`), then: {p['command']}")
    if decline:
        import json

        from cogit.store.git import repo as git

        declined = dict(_declined(home), **{key: p["hash"]})
        home.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        git.write_atomic(_declined_path(home), json.dumps(declined, sort_keys=True).encode("utf-8"), durable=True)
        return {"key": key, "value": p["here"], "declined": p["synced"], "file": str(_declined_path(home))}
    doc = load(home)
    _put(doc, key, p["synced"])
    save(home, doc)
    return {"key": key, "value": p["synced"], "was": p["here"], "file": file_path(home.top)}


def show(value) -> str:
    import json

    text = json.dumps(value)
    return text if len(text) <= 120 else text[:117] + "..."


def describe(p: dict) -> str:
    return f"{p['key']} = {show(p['synced'])} in config.yaml (here: {show(p['here'])}; {p['why']})"
