"""Section names and their singular forms. Standard library only: the cold history
commands (`why`, `log --item`) render item changes without loading the schema."""

ITEM_SECTIONS = ("heuristics", "learnings", "avoidances", "reflections", "rules")
SINGULAR = {
    "heuristics": "heuristic",
    "learnings": "learning",
    "avoidances": "avoidance",
    "reflections": "reflection",
    "rules": "rule",
    "focus": "focus",
    "engagement": "engagement",
    "tools": "tools",
    "config": "config",
}
