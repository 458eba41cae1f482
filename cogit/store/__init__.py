"""The versioned memory store: YAML state in a git repository, one write path.

Rooms, lowest first (each imports only rooms before it, and cogit/domain/):

    git/      the git adapter (dulwich) and the commit message's provenance trailers
    state/    reading and validating state: documents, schemas, YAML, the parse cache
    cache/    what is read often, kept cheap: state snapshots, the digest per scope
    write/    the one write path, kill recovery, redaction of hand edits
    history/  log, why, diff, revert, and the item index behind them

On top, the operations commands call: `memory` (init, read, add, forget, focus),
`scopes` (project branches, promote, demote), `scoped` (reading across scopes),
`dedupe` (near duplicates), `maintain` (packing, reflogs, the parse cache).
The store imports nothing of learn, cli, hooks, sync, report or mcpserver
(tests/test_layout.py).
"""
