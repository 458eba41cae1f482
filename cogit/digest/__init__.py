"""The digest: what the agent is shown, assembled from memory's state.

`assemble` turns the state of one or more scopes into the bounded text the hooks inject
(and the newest items a prompt may announce), by the domain's ranking
(cogit/domain/rank.py) and ledger (cogit/domain/ledger.py). Pure: no git, no YAML,
no files. The write path caches its result for the hooks (cogit/store/cache/digest.py).
"""
