"""The one write path (`transact`): lock, absorb hand edits, load, apply, cap, redact,
validate, commit, working tree, caches. With it: recovery from a kill at any moment
(`recover`), redaction of text a person wrote (`scrub`), and store.log notes (`notes`)."""
