"""How history.dat stores one commit's record (cogit/store/history/index.py): JSON, zlib-
compressed on its own with a preset dictionary of what records have in common (their keys,
trailer names, the session-end summary), so a record takes about a quarter of its JSON and
the runtime folder stays within the repository's size (store/cache/tidy.py). Each record
is still read alone, by offset and length. Standard library only; zlib is imported when a
record is read or written (`log -n N` reads recent files only).
"""

from __future__ import annotations

import json

FORMAT = 3  # history.idx's header names it: another format is rebuilt, never misread
# Changing the dictionary changes the format.
ZDICT = (b'{"sha":"","time":,"author":"claude-code <claude-code@agents.cogit>","summary":"Session  ended:  tool '
         b'calls ( failed),  prompts","body":"","trailers":{"Cogit-Event":"session.end","Cogit-Source":"hook",'
         b'"Cogit-Agent":"claude-code","Cogit-Session":"","Cogit-Project":"global","Cogit-Model":"","Cogit-Digest":'
         b'"startup  chars= tokens= cut=","Cogit-Fold":"","Cogit-Meaningful":"","Cogit-Title":""},"changes":[["~",'
         b'"engagement","engagement","",[["meaningful_interactions",],["total_interactions",]]],["~","tools",'
         b'"sequences","",[["sequences.Bash > Bash",]]],["~","tools","sessions","",[["sessions",]]],["~","tools",'
         b'"Bash","",[["tools.Bash.calls",],["tools.Bash.duration_ms_total",],["tools.Bash.timed_calls",]]],["+",'
         b'"learnings","","",[["category",null,"insight"],["created_at",null,""],["source",null,"hook"],["text",null,'
         b'""],["updated_at",null,""]]]]}')


def pack(rec: dict) -> bytes:
    import zlib

    z = zlib.compressobj(6, zdict=ZDICT)
    return z.compress(json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) + z.flush()


def text(data: bytes, limit: int) -> bytes:
    """The record's JSON bytes in `data`, at most `limit` of them (a reader may look for a
    trailer's name in them before it parses); ValueError when they are not readable."""
    import zlib

    try:
        return zlib.decompressobj(zdict=ZDICT).decompress(data, limit)
    except zlib.error as e:
        raise ValueError(str(e)) from None


def unpack(data: bytes, limit: int):
    """The record in `data`, at most `limit` bytes of JSON; ValueError when it is not one."""
    return json.loads(text(data, limit))


def inflate(packed: bytes, limit: int) -> bytes:
    """A zlib stream's content, read no further than `limit` bytes; ValueError if it is longer,
    torn or not zlib (the history index's recent files)."""
    import zlib

    try:
        d = zlib.decompressobj()
        data = d.decompress(packed, limit + 1)
    except zlib.error as e:
        raise ValueError(str(e)) from None
    if len(packed) > limit or len(data) > limit or not d.eof:
        raise ValueError("not a whole stream within its bound")
    return data
