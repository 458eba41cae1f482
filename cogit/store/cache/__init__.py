"""Caches built from memory's state, so that what is read often is read cheaply.

`snapshot`: the state at a branch's head as JSON, for the cold `show` and `status`.
`digest`: the compiled digest per scope, for the hooks (standard library only).
Each is checked against the commit it was made from; a stale or broken one is ignored.
"""
