"""Reading and validating state: the documents of each section (`documents`: file names,
ids, defaults, caps), validation against schemas/ (`schema`, `schemacheck`), the one
ruamel.yaml configuration (`yamlio`), the fast canonical reader (`canonical_reader`) and
the parse cache by blob (`loader`)."""
