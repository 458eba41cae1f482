"""How much of an agent's or a tool's text the hooks look at: one constant per input.

Every hook payload is hostile and can be as large as `hooks.max_payload_bytes` (4 MB by
default). Parsing it is linear and unavoidable; everything after that (error signatures,
prompt analysis, the senses) works on the cut texts below, so a hook's own work stays at a
few milliseconds whatever the payload, and the session lock is never held for longer.
docs/senses.md and docs/agents.md list the same sizes. Standard library only, no imports:
this module is on the path of every tool call.
"""

# A failed call's error text (PostToolUseFailure `error`, an MCP error result): its first
# 2 KB ("Exit code N", the command's first complaint) and its last 8 KB (the exception,
# the test summary). Claude Code itself cuts Bash output at 30,000 characters.
ERROR_HEAD = 2_000
ERROR_TAIL = 8_000
# … and of those, at most the first 40 and the last 160 lines (one line costs the same
# however short it is).
ERROR_LINES_HEAD = 40
ERROR_LINES_TAIL = 160
# A user prompt: its first 8 KB and its last 4 KB ("remember this: …" at the end of a
# pasted log still counts).
PROMPT_HEAD = 8_000
PROMPT_TAIL = 4_000
# Each string of a tool_input (command, file_path, pattern, url, old_string, new_string,
# content …) as the senses analyse it: the first 4 KB. Sizes that enter the context are
# counted before the cut, with len().
INPUT_TEXT = 4_000
# What a write's fingerprint (the "same content again?" test) is taken over: the first and
# the last 64 KB of each string, and its length.
FINGERPRINT_HEAD = 65_536
FINGERPRINT_TAIL = 65_536
# Lists in a payload (MultiEdit edits, MCP content blocks, Grep file names, patch lines):
# the first 1,000 items are looked at; sizes of longer lists are extrapolated.
ITEMS = 1_000
# Short fields (session_id, tool_name, tool_use_id, model, source, reason, trigger): longer
# values are cut; a session_id longer than this is refused as malformed.
NAME = 256
# A path (cwd, file_path) longer than PATH_MAX names no real file and is ignored.
PATH = 4_096

GAP = "\n\n…\n\n"  # marks a cut inside a text; a blank line, so no word or sentence spans it


def cut(text: str, head: int, tail: int = 0) -> str:
    """`text` if it is at most head + tail characters long, else its head and tail around GAP."""
    if len(text) <= head + tail:
        return text
    return text[:head] + GAP + text[len(text) - tail :] if tail > 0 else text[:head] + GAP
