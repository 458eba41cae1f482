"""The table of secret kinds cogit redacts, and the checks that confirm a match.

One row per kind: (kind, triggers, pattern, group, check, case_insensitive). The engine
(cogit/redact.py) runs a kind's pattern only when a text holds one of its triggers (plain
`in` tests) and its hint, if it has one, agrees; so most texts never import `re`. Every
pattern has bounded repetition and starts with a literal (the bounds are explained in
cogit/redact.py). Standard library only, no cogit module: the domain and the digest use
the engine, and the hooks call it on the per-call path.
"""

MAX_BLOCK = 16 * 1024  # a private key block without its END line is redacted this far

_TOK = "A-Za-z0-9_-"  # base64url, the alphabet of most tokens
_B64 = "A-Za-z0-9+/"
# userinfo of a URL: no white space, quotes or brackets (code around a URL is not a password)
_USER = r"[^\s:/@\"'`<>()\[\]{}]{0,100}+"
_PASS = r"([^\s@/\"'`<>()\[\]{}]{1,200}+)"


def _tok(prefix: str, body: str, b: str = _TOK) -> str:
    """A token that starts with `prefix`, not in the middle of a word (`-`, `_` may precede it)."""
    return f"{prefix[0]}(?<![A-Za-z0-9].){prefix[1:]}{body}"


# (kind, triggers, pattern, group, check, case_insensitive)
# triggers: substrings that must be in the text (lowered text for case-insensitive
# kinds) before the pattern is compiled or run. group: the part replaced (0: all).
# check: name of a function below that confirms the match (and may move its span).
TABLE: list[tuple] = [
    ("private-key", ("-----BEGIN",), r"-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----", 0, "_key_block", False),
    ("jwt", ("eyJ",), _tok("eyJ", r"[A-Za-z0-9_-]{8,1000}+\.[A-Za-z0-9_-]{8,8000}+\.[A-Za-z0-9_-]{8,1000}+"), 0, None, False),
    ("aws-access-key-id", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
     "A(?<![A-Za-z0-9].)(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])", 0, None, False),
    ("gcp-private-key-id", ("private_key_id",), r'"private_key_id"[ \t]{0,4}+:[ \t]{0,4}+"([0-9a-f]{40})"', 1, None, False),
    ("google-api-key", ("AIza",), _tok("AIza", r"[0-9A-Za-z_-]{35}"), 0, None, False),
    ("google-oauth-secret", ("GOCSPX-",), _tok("GOCSPX-", r"[A-Za-z0-9_-]{20,40}+"), 0, None, False),
    ("google-oauth-token", ("ya29.",), _tok("ya29.", r"[0-9A-Za-z_-]{20,2000}+"), 0, None, False),
    ("azure-storage-key", ("accountkey=",), r"accountkey=([a-z0-9+/=]{40,120}+)", 1, None, True),
    ("azure-sas-signature", ("sig=",), r"[?&;]sig=([A-Za-z0-9%+/=]{20,200}+)", 1, None, False),
    ("github-fine-grained-token", ("github_pat_",), _tok("github_pat_", r"[A-Za-z0-9_]{40,255}+"), 0, None, False),
    ("github-token", ("ghp_",), _tok("ghp_", r"[A-Za-z0-9]{30,255}+"), 0, None, False),
    ("github-oauth-token", ("gho_",), _tok("gho_", r"[A-Za-z0-9]{30,255}+"), 0, None, False),
    ("github-app-token", ("ghu_", "ghs_"), _tok("gh", r"[us]_[A-Za-z0-9]{30,255}+"), 0, None, False),
    ("github-refresh-token", ("ghr_",), _tok("ghr_", r"[A-Za-z0-9]{30,255}+"), 0, None, False),
    ("gitlab-token", ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-", "glimt-", "glft-"),
     _tok("gl", r"(?:pat|ptt|dt|rt|cbt|oas|imt|ft)-[A-Za-z0-9_-]{20,255}+"), 0, None, False),
    ("bitbucket-app-password", ("ATBB",), _tok("ATBB", r"[A-Za-z0-9_=.-]{28,200}+"), 0, None, False),
    ("atlassian-api-token", ("ATATT",), _tok("ATATT", r"[A-Za-z0-9_=.-]{40,400}+"), 0, None, False),
    ("npm-token", ("npm_",), _tok("npm_", r"[A-Za-z0-9]{36}"), 0, "_mixed", False),
    ("pypi-token", ("pypi-AgE",), _tok("pypi-AgE", r"[A-Za-z0-9_-]{50,400}+"), 0, None, False),
    ("rubygems-token", ("rubygems_",), _tok("rubygems_", r"[0-9a-f]{48}"), 0, None, False),
    ("dockerhub-token", ("dckr_pat_", "dckr_oat_"), _tok("dckr_", r"[po]at_[A-Za-z0-9_-]{20,80}+"), 0, None, False),
    ("anthropic-api-key", ("sk-ant-",), _tok("sk-ant-", r"[A-Za-z0-9_-]{20,300}+"), 0, None, False),
    ("openai-api-key", ("sk-",), _tok("sk-", r"[A-Za-z0-9_-]{20,300}+"), 0, "_mixed", False),
    ("huggingface-token", ("hf_",), _tok("hf_", r"[A-Za-z0-9]{30,60}+"), 0, "_mixed", False),
    ("groq-api-key", ("gsk_",), _tok("gsk_", r"[A-Za-z0-9]{40,60}+"), 0, "_mixed", False),
    ("replicate-token", ("r8_",), _tok("r8_", r"[A-Za-z0-9]{30,50}+"), 0, "_mixed", False),
    ("perplexity-api-key", ("pplx-",), _tok("pplx-", r"[A-Za-z0-9]{40,64}+"), 0, "_mixed", False),
    ("xai-api-key", ("xai-",), _tok("xai-", r"[A-Za-z0-9]{60,100}+"), 0, "_mixed", False),
    ("stripe-secret-key", ("sk_live_", "sk_test_"), _tok("sk_", r"(?:live|test)_[A-Za-z0-9]{10,247}+"), 0, None, False),
    ("stripe-restricted-key", ("rk_live_", "rk_test_"), _tok("rk_", r"(?:live|test)_[A-Za-z0-9]{10,247}+"), 0, None, False),
    ("stripe-webhook-secret", ("whsec_",), _tok("whsec_", r"[A-Za-z0-9]{24,100}+"), 0, None, False),
    ("square-token", ("EAAA", "sq0atp-", "sq0csp-"), r"(?:E(?<![A-Za-z0-9].)AAA[A-Za-z0-9_-]{56,100}+|s(?<![A-Za-z0-9].)q0(?:atp|csp)-[A-Za-z0-9_-]{22,60}+)", 0, None, False),
    ("braintree-token", ("access_token$production$", "access_token$sandbox$"),
     r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}", 0, None, False),
    ("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"), _tok("shp", r"(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"), 0, None, False),
    ("twilio-api-key", ("SK",), _tok("SK", r"[0-9a-f]{32}(?![A-Za-z0-9])"), 0, None, False),
    ("twilio-account-sid", ("AC",), _tok("AC", r"[0-9a-f]{32}(?![A-Za-z0-9])"), 0, None, False),
    ("sendgrid-api-key", ("SG.",), _tok("SG.", r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}+"), 0, None, False),
    ("mailgun-api-key", ("key-",), _tok("key-", r"[0-9a-zA-Z]{32}(?![A-Za-z0-9])"), 0, "_mixed_digit", False),
    ("mailchimp-api-key", ("-us",), r"-us[0-9]{1,2}(?![A-Za-z0-9])", 0, "_mailchimp", False),
    ("slack-token", ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe", "xapp-"),
     r"x(?<![A-Za-z0-9].)(?:ox[abposre](?:\.[A-Za-z0-9_-]{0,10})?|app)-[A-Za-z0-9-]{10,300}+", 0, None, False),
    ("slack-webhook", ("hooks.slack.com",), r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,300}+", 0, None, False),
    ("discord-webhook", ("/api/webhooks/",), r"/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{20,200}+", 0, None, False),
    ("discord-bot-token", (".",), r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}+", 0, "_discord", False),
    ("telegram-bot-token", (":AA",), r":AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", 0, "_telegram", False),
    ("teams-webhook", ("webhook.office.com",), r"webhook\.office\.com/webhookb2/[A-Za-z0-9@/._-]{20,500}+", 0, None, False),
    ("age-secret-key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}", 0, None, False),
    ("vault-token", ("hvs.", "hvb.", "hvr."), _tok("hv", r"[sbr]\.[A-Za-z0-9_-]{24,300}+"), 0, None, False),
    ("newrelic-key", ("NRAK-", "NRII-", "NRJS-", "NRRA-"), _tok("NR", r"(?:AK|II|JS|RA)-[A-Z0-9]{20,40}+"), 0, None, False),
    ("heroku-api-key", ("HRKU-",), _tok("HRKU-", r"[A-Za-z0-9_-]{40,100}+"), 0, None, False),
    ("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), _tok("do", r"[por]_v1_[a-f0-9]{64}"), 0, None, False),
    ("linear-api-key", ("lin_api_", "lin_oauth_"), _tok("lin_", r"(?:api|oauth)_[A-Za-z0-9]{32,60}+"), 0, None, False),
    ("notion-token", ("secret_", "ntn_"), r"(?:s(?<![A-Za-z0-9].)ecret_[A-Za-z0-9]{43}|n(?<![A-Za-z0-9].)tn_[A-Za-z0-9]{40,50}+)(?![A-Za-z0-9])", 0, "_mixed", False),
    ("doppler-token", ("dp.",), _tok("dp.", r"(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_.-]{40,200}+"), 0, None, False),
    ("pulumi-token", ("pul-",), _tok("pul-", r"[a-f0-9]{40}"), 0, None, False),
    ("terraform-cloud-token", (".atlasv1.",), r"\.atlasv1\.[A-Za-z0-9_=-]{60,100}+", 0, "_atlas", False),
    ("flyio-token", ("fo1_", "fm1", "fm2"), r"f(?<![A-Za-z0-9].)(?:o1_[A-Za-z0-9_-]{40,50}+|m[12][ar]?_[A-Za-z0-9+/=_-]{50,2000}+)", 0, None, False),
    ("supabase-token", ("sbp_", "sb_secret_"), _tok("sb", r"(?:p_[a-f0-9]{40}|_secret_[A-Za-z0-9_-]{20,80}+)"), 0, None, False),
    ("postman-api-key", ("PMAK-",), _tok("PMAK-", r"[a-f0-9]{24}-[a-f0-9]{34}"), 0, None, False),
    ("grafana-token", ("glc_", "glsa_"), _tok("gl", r"(?:c_[A-Za-z0-9+/=]{32,400}+|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"), 0, None, False),
    ("databricks-token", ("dapi",), _tok("dapi", r"[a-f0-9]{32}(?:-[0-9])?"), 0, None, False),
    ("netlify-token", ("nfp_",), _tok("nfp_", r"[A-Za-z0-9]{36,40}+"), 0, None, False),
    # Alibaba Cloud AccessKey IDs: LTAI and 12 or 20 letters and digits (16 or 24 in all).
    ("alibaba-access-key-id", ("LTAI",), "L(?<![A-Za-z0-9].)TAI[A-Za-z0-9]{12}(?:[A-Za-z0-9]{8})?(?![A-Za-z0-9])", 0, "_mixed", False),
    # Okta API tokens travel as `Authorization: SSWS <token>` (00 and 40 characters).
    ("okta-api-token", ("SSWS",), r"S(?<![A-Za-z0-9].)SWS[ \t]{1,4}+([A-Za-z0-9_-]{30,80}+)", 1, "_bearer", False),
    # Mapbox secret (sk.) and temporary (tk.) tokens: the kind, a base64url JSON payload, a signature.
    ("mapbox-token", ("sk.eyJ", "tk.eyJ"), r"[st](?<![A-Za-z0-9].)k\.eyJ[A-Za-z0-9_-]{20,400}+\.[A-Za-z0-9_-]{20,100}+", 0, None, False),
    # Sentry organization auth tokens (sntrys_ and a base64 JSON payload with its secret) and user tokens.
    ("sentry-token", ("sntrys_", "sntryu_"), _tok("sntry", r"(?:s_eyJ[A-Za-z0-9+/=_-]{40,2000}+|u_[a-f0-9]{64})"), 0, None, False),
    ("sentry-dsn", ("://",), r"://([0-9a-f]{32})(?::[0-9a-f]{32})?@", 0, "_sentry", False),
    ("connection-string", ("://",),
     r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|neo4j(?:\+s)?)://" + _USER + ":" + _PASS + "@",
     1, "_not_redacted", True),
    ("url-password", ("://",), "://" + _USER + ":" + _PASS + "@", 1, "_not_redacted", False),
    ("bearer-token", ("bearer",), r"bearer[ \t]{1,4}+([A-Za-z0-9._~+/=-]{16,4000}+)", 1, "_bearer", True),
    ("basic-auth", ("basic",), r"basic[ \t]{1,4}+([A-Za-z0-9+/]{8,1000}+={0,2})", 1, "_basic", True),
    # `NAME=value`, `NAME: value`, `"name": "value"`: the name ends with key, token,
    # secret, password...; see _assignment for which names and values count.
    ("secret", ("key", "token", "secret", "pass", "pwd", "credential", "auth"),
     r"(?:key|token|secret|passw(?:or)?d|pass|pwd|passphrase|credentials?|auth)s?[\"']?[ \t]{0,4}+(?::=|=>|[:=])[ \t]{0,4}+[\"'`]?([^\s\"'`,;)}\]]{4,1000}+)",
     1, "_assignment", True),
]

# Kinds found by the checks below (they move a match to a kind of their own) or by the engine.
KINDS = tuple(k[0] for k in TABLE) + ("unscanned", "password", "aws-secret-key", "datadog-api-key", "twilio-auth-token",
                                      "heroku-api-key", "mailchimp-api-key")


# Hints: for the kinds whose triggers are common in ordinary text (a `.`, a `://`, the word
# `pass` in "3 passed"), a plain-string look at what must follow the trigger, so a command
# or an error message that holds no candidate imports no `re` (10-20 ms on a hook).
def _hint_dots(hay: str, _triggers) -> bool:
    """`.xxxxxx.`: the middle part of a Discord bot token."""
    i = hay.find(".")
    while 0 <= i < len(hay) - 7:
        if hay[i + 7] == "." and all(c in _B64URL for c in hay[i + 1 : i + 7]):
            return True
        i = hay.find(".", i + 1)
    return False


def _hint_userinfo(hay: str, _triggers) -> bool:
    """`://...@`: credentials (or a Sentry key) in the authority of a URL."""
    i = hay.find("://")
    while i >= 0:
        at = hay.find("@", i + 3, i + 400)
        if at >= 0 and not any(c.isspace() for c in hay[i + 3 : at]):
            return True
        i = hay.find("://", i + 3)
    return False


def _hint_assignment(hay: str, triggers) -> bool:
    """A secret-like word followed by an assignment (`:`, `=`, `:=`, `=>`)."""
    n = len(hay)
    for t in triggers:
        i = hay.find(t)
        while i >= 0:
            j = i + len(t)
            if t == "pass":
                for rest in ("word", "wd", "phrase"):
                    if hay.startswith(rest, j):
                        j += len(rest)
                        break
            k = j + 2
            while j < k and j < n and hay[j] == "s":  # credentials, keys
                j += 1
            k = j + 6
            while j < k and j < n and hay[j] in "\"' \t":  # a quote, blanks
                j += 1
            if j < n and hay[j] in ":=":
                return True
            i = hay.find(t, i + 1)
    return False


HINTS = {"discord-bot-token": _hint_dots, "sentry-dsn": _hint_userinfo, "connection-string": _hint_userinfo,
         "url-password": _hint_userinfo, "secret": _hint_assignment}


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def assignments(rx, hay, window):
    """The matches of the assignment kind, every assignment of a line included.

    `credential: aws_secret_access_key = X` first matches `credential:` with the value
    `aws_secret_access_key`: a name that is itself assigned to. That match is skipped and the
    search goes on from the name, so `..._key = X` is checked (and X redacted). Only a name
    (at most 80 name characters) restarts the search, so each character is read a bounded
    number of times."""
    pos, n = 0, len(hay)
    while pos < n:
        m = rx.search(hay, pos)
        if m is None:
            return
        start, end = m.span(1)
        value = window[start:end]
        name = value.rstrip(":=")
        if len(name) <= 80 and name and all(c in _NAME_CHARS for c in name):
            after = end
            while after < n and window[after] in " \t":
                after += 1
            if len(name) < len(value) or (after < n and window[after] in ":="):
                pos = start  # the value is the name of the next assignment
                continue
        yield m
        pos = m.end()


# --- checks: (window, match, start, end) -> False | True | (start, end, kind) ---------

def _classes(value: str) -> int:
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def _entropy(value: str) -> float:
    import math

    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def _mixed(window, m, start, end):
    """Random tokens mix letters and digits (or cases); words with a prefix do not."""
    value = window[start:end]
    return any(c.isdigit() for c in value) and (any(c.isalpha() for c in value))


def _mixed_digit(window, m, start, end):
    return _mixed(window, m, start, end) and _classes(window[start + 4:end]) >= 2


_NEXT_END: list = [None, -1, -1]  # (window, searched from, found at): one scan per window


def _key_block(window, m, start, end):
    """From BEGIN to the END line (or MAX_BLOCK characters when there is none)."""
    memo = _NEXT_END
    if memo[0] is not window or end < memo[1] or (0 <= memo[2] < end):
        memo[0], memo[1], memo[2] = window, end, window.find("-----END", end)
    close = memo[2]
    if close < 0 or close - end > MAX_BLOCK:
        return start, min(len(window), start + MAX_BLOCK), "private-key"
    tail = window.find("-----", close + 8, close + 80)
    return start, (tail + 5 if tail >= 0 else close + 8), "private-key"



def _back(window, start, alphabet, lo, hi):
    """Where a run of `alphabet` characters of length lo..hi ending at `start` begins, or -1."""
    i = start
    while i > 0 and start - i < hi + 1 and window[i - 1] in alphabet:
        i -= 1
    n = start - i
    if n < lo or n > hi or (i > 0 and window[i - 1].isalnum()):
        return -1
    return i


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_HEX = frozenset("0123456789abcdef")
_DIGITS = frozenset("0123456789")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _mailchimp(window, m, start, end):
    i = _back(window, start, _HEX, 32, 32)
    return (i, end, "mailchimp-api-key") if i >= 0 else False


def _discord(window, m, start, end):
    i = _back(window, start, _ALNUM, 23, 28)  # base64 of a numeric id: no `_` or `-` (which may glue it to a name)
    if i < 0 or window[i] not in "MNO" or not _mixed(window, m, i, end):
        return False
    return i, end, "discord-bot-token"


def _telegram(window, m, start, end):
    i = _back(window, start, _DIGITS, 8, 10)
    return (i, end, "telegram-bot-token") if i >= 0 else False


def _atlas(window, m, start, end):
    i = _back(window, start, _ALNUM, 14, 14)
    return (i, end, "terraform-cloud-token") if i >= 0 else False


def _sentry(window, m, start, end):
    s, e = m.span(1)
    return s, e, "sentry-dsn"


def _not_redacted(window, m, start, end):
    value = window[start:end]
    return not value.startswith(("[REDACTED", "%5BREDACTED")) and value not in ("***", "****", "xxx")


def _bearer(window, m, start, end):
    value = window[start:end]
    return _classes(value) >= 2 and not value.startswith("[REDACTED")


def _basic(window, m, start, end):
    import binascii

    value = window[start:end]
    try:
        decoded = binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded and all(32 <= c < 127 for c in decoded)


_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~:@!*")
_PLACEHOLDERS = frozenset(("changeme", "password", "secret", "token", "none", "null", "true", "false", "example",
                           "redacted", "required", "optional", "undefined", "hidden", "masked", "string", "your_key"))
_NOT_SECRET_NAMES = ("url", "uri", "path", "file", "dir", "name", "id", "type", "ref", "env", "var", "len",
                     "length", "count", "size", "field", "header", "hash", "prefix", "suffix", "format", "policy")
_PASSWORD_WORDS = ("password", "passwd", "pwd", "pass", "passphrase", "credential", "credentials")
_SECRET_WORDS = ("key", "keys", "token", "tokens", "secret", "secrets", "auth", "apikey", "pat") + _PASSWORD_WORDS


def _words(name: str) -> list[str]:
    """snake_case, kebab-case, dotted and camelCase words of a name, lowered."""
    words, cur = [], ""
    for i, c in enumerate(name):
        if c in "_-.":
            if cur:
                words.append(cur)
            cur = ""
        elif c.isupper() and cur and name[i - 1].islower():
            words.append(cur)
            cur = c
        else:
            cur += c
    if cur:
        words.append(cur)
    return [w.lower() for w in words]


def _assignment(window, m, start, end):
    """A value assigned to a secret-like name: passwords always, keys and tokens when random."""
    name_end = m.start()
    while name_end < len(window) and (window[name_end].isalnum() or window[name_end] == "_"):
        name_end += 1
    name_start = m.start()
    while name_start > 0 and m.start() - name_start < 80 and (window[name_start - 1].isalnum() or window[name_start - 1] in "_-."):
        name_start -= 1
    name = window[name_start:name_end]
    words = _words(name)
    if not words:
        return False
    last = words[-1]
    value = window[start:end].rstrip(".")
    low = value.lower()
    if (value.startswith(("[REDACTED", "$", "<", "{", "%(", "#", "http", "os.", "process.", "env."))
            or "(" in value or low in _PLACEHOLDERS or len(set(low)) <= 2):
        return False  # a reference, a call or a placeholder: code and docs, not a secret
    end = start + len(value)
    joined = "".join(words)
    kind = "secret"
    if last in _PASSWORD_WORDS or (last not in _NOT_SECRET_NAMES and any(w in ("password", "passwd") for w in words)):
        if len(value) < 6:
            return False
        kind = "password"
    elif last in _SECRET_WORDS or joined.endswith(("apikey", "secretkey", "accesskey", "privatekey", "authtoken", "accesstoken")):
        # Random: letters and digits, token characters only, varied (`key=foo.bar` is code).
        if (len(value) < 8 or not all(c in _TOKEN_CHARS for c in value) or not _mixed(window, m, start, end)
                or _entropy(value) < 3.0):
            return False
    else:
        return False
    if "aws" in words and "secret" in words:
        kind = "aws-secret-key"
    elif "datadog" in words or joined.startswith(("ddapikey", "ddappkey")):
        kind = "datadog-api-key"
    elif "twilio" in words and kind == "secret":
        kind = "twilio-auth-token"
    elif "heroku" in words:
        kind = "heroku-api-key"
    elif "mailchimp" in words:
        kind = "mailchimp-api-key"
    return start, end, kind


def end_of_window() -> None:
    """The engine is done with a window: _key_block's memo of it is dropped."""
    _NEXT_END[0] = None


CHECKS = {name: globals()[name] for name in {k[4] for k in TABLE if k[4]}}
