"""The git adapter: the only code that imports dulwich (`repo`), and the commit message
with its provenance trailers (`provenance`). Everything else in cogit reads and writes
memory's repository through these."""
