"""JSON for the hook path without `import json`.

`import json` imports `re`, `enum` and more: about 8 ms in a process that lives for
30. The C accelerator `_json` that json uses underneath imports nothing, so the hooks
call it directly; anything unusual (no accelerator, an error to report) falls back to
the json module, which is then imported only in that process.
"""


try:  # CPython always has it; other interpreters may not
    import _json
except ImportError:  # pragma: no cover
    _json = None

_WS = " \t\n\r"


def _constant(name):
    return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


class _Context:
    # The attributes the C scanner reads (json.decoder.JSONDecoder has the same ones).
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)
    memo: dict = {}


_scan = _json.make_scanner(_Context()) if _json else None


def loads(text: str):
    if _scan is None:
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except Exception:  # StopIteration, or SystemError: the C scanner reports errors via json.decoder
        import json

        return json.loads(text)  # raises JSONDecodeError with the position
    if text[end:].strip(_WS):
        import json

        return json.loads(text)  # "Extra data": let json say where
    return value


def _default(value):
    return str(value)


def _encoder(ensure_ascii: bool, default):
    encode = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    return _json.make_encoder(None, default, encode, None, ":", ",", False, False, True)


_ENCODERS: dict = {}


def dumps(value, ensure_ascii: bool = False, default=None) -> str:
    """Compact JSON (separators `,` and `:`), like json.dumps(..., separators=(",", ":"))."""
    if _json is None:
        import json

        return json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":"), default=default)
    key = (ensure_ascii, default)
    if key not in _ENCODERS:
        _ENCODERS[key] = _encoder(ensure_ascii, default or _no_default)
    return "".join(_ENCODERS[key](value, 0))


def _no_default(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
