"""Which settings act and which sync: the classification every machine applies.

A setting that runs a program, opens a connection, decides when those happen, or grants
trust is LOCAL: it takes effect only from this machine's own settings file
(cogit/machine_settings.py), never from the synced config.yaml. Everything else is
SHARED. Pure data and dict helpers: the digest cache (store) strips LOCAL settings from
what the hooks read, and machine_settings applies this machine's values.
"""

SHARED, LOCAL = "shared", "local"

# Every setting, by dotted path (a free-form mapping, like `senses`, is one setting).
# A new setting must be added here, classified: a test reads the schema and fails otherwise.
# LOCAL entries say what they would let a stranger do if a synced value took effect.
SETTINGS = {
    "schema_version": (SHARED, "the format"),
    "caps.learnings": (SHARED, "how much memory keeps"),
    "caps.reflections": (SHARED, "how much memory keeps"),
    "caps.heuristics": (SHARED, "how much memory keeps"),
    "caps.avoidances": (SHARED, "how much memory keeps"),
    "caps.rules": (SHARED, "how much memory keeps"),
    "caps.priorities": (SHARED, "how much memory keeps"),
    "caps.sequences": (SHARED, "how much memory keeps"),
    "digest.max_chars": (SHARED, "how much is shown (bounded by the schema)"),
    "digest.turn_max_chars": (SHARED, "how much is shown (bounded by the schema)"),
    "digest.heuristics": (SHARED, "what is shown first"),
    "digest.learnings": (SHARED, "what is shown first"),
    "digest.avoidances": (SHARED, "what is shown first"),
    "digest.rules": (SHARED, "what is shown first"),
    "digest.reflections": (SHARED, "what is shown first"),
    "hooks.lock_timeout_ms": (SHARED, "a bound of the hooks (bounded by the schema)"),
    "hooks.max_payload_bytes": (SHARED, "a bound of the hooks"),
    "hooks.max_records": (SHARED, "a bound of the hooks"),
    "hooks.session_stale_minutes": (SHARED, "when cogit's own finalize folds a silent session"),
    "learning.meaningful_min_chars": (SHARED, "what counts as an interaction"),
    "learning.rule_dormant_days": (SHARED, "how rules decay"),
    "learning.rule_half_life_days": (SHARED, "how rules decay"),
    "learning.rule_min_confidence": (SHARED, "how rules decay"),
    "learning.rule_idle_sessions": (SHARED, "when a rule never relevant leaves the digest"),
    "learning.withhold": (SHARED, "what is shown: the share of sessions a learned rule sits out, to measure it (bounded by the schema)"),
    "learning.withhold_person_rules": (SHARED, "what is shown: whether a person's rules sit out too"),
    "learning.effect_min_sessions": (SHARED, "when a measured effect gets a verdict"),
    "learning.detectors.error_loop.min_failures": (SHARED, "a detector threshold"),
    "learning.detectors.repeated_read.min_reads": (SHARED, "a detector threshold"),
    "learning.detectors.circular_search.min_repeats": (SHARED, "a detector threshold"),
    "learning.detectors.long_run.min_calls": (SHARED, "a detector threshold"),
    "learning.detectors.edits_without_tests.min_edits": (SHARED, "a detector threshold"),
    "learning.detectors.context_flood.min_warnings": (SHARED, "a detector threshold"),
    "learning.custom_detectors": (SHARED, "text matching over tool calls (data, no code)"),
    "senses": (SHARED, "thresholds of the in-session signals (text only)"),
    "sync.auto": (LOCAL, "opens a connection to the remote at every session start and end"),
    "sync.pull_timeout_s": (LOCAL, "how long the automatic pull holds a connection"),
    "sync.remote": (LOCAL, "chooses the remote memory is sent to"),
    "sync.transport": (LOCAL, "chooses the program that talks to the remote"),
    "projects.overrides": (SHARED, "project names (data)"),
    "redaction.allowlist": (SHARED, "literal strings kept as they are (a stranger must know the secret already)"),
    "mcp.allow_forget": (LOCAL, "lets the agent forget items"),
    "reflect.endpoint": (LOCAL, "opens a connection: memory is posted to it"),
    "reflect.model": (LOCAL, "what the endpoint is asked to run"),
    "reflect.command": (LOCAL, "runs a program"),
    "reflect.timeout_s": (LOCAL, "how long the program or the connection runs"),
    "reflect.auto": (LOCAL, "decides when the reflector runs"),
    "reflect.min_interactions": (LOCAL, "decides when the reflector runs"),
    "reflect.min_hours": (LOCAL, "decides when the reflector runs"),
    "doctor.stale_days": (SHARED, "a warning threshold"),
    "doctor.reflection_stale_days": (SHARED, "a warning threshold"),
    "doctor.max_loose_objects": (SHARED, "a warning threshold"),
    "doctor.max_repo_mb": (SHARED, "a warning threshold"),
    "reflex.block_repeats": (LOCAL, "decides which commands the agent may run (a hint becomes a block)"),
    "review.auto_accept": (LOCAL, "lets proposals (a model's answer among them) skip your review"),
}

LOCAL_KEYS = tuple(k for k, (kind, _) in SETTINGS.items() if kind == LOCAL)


def lookup(doc, key: str, default=None):
    """The value at a dotted path of a nested mapping (`default` where a part is missing)."""
    node = doc
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def drop(doc: dict, key: str) -> None:
    parts = key.split(".")
    node = doc
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return
    node.pop(parts[-1], None)


def without_local(config) -> dict:
    """A copy of `config` without its LOCAL settings (what a synced config may decide)."""
    import copy

    out = copy.deepcopy(dict(config or {}))
    for key in LOCAL_KEYS:
        drop(out, key)
    return out
