"""The domain: what memory is made of, as pure code (no I/O, no git, no YAML).

What a rule's ledger is and how its confidence is computed (`ledger`), the score that
orders items (`rank`), tombstones of what a person refused (`tombstones`), how cogit
writes a time (`times`). The store persists these, learning computes them, the digest
shows them; all three import from here, never the other way round.
"""
