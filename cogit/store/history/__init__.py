"""History and its index: `log`, `why`, `diff` and `revert` (`log`), the item index that
keeps them fast (`index`), one item change of a commit (`change`), the semantic diff of
two states (`diff`), and `cogit scan` for secrets already in history (`scan`)."""
