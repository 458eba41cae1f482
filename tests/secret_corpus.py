"""A corpus of fake, format-valid secrets, generated at test time.

Nothing here is a literal secret: every value is built from a prefix and random
characters when the corpus is made, so scanners find nothing in this repository.
Each entry is (kind, secret, text): `text` is how the secret appears in a sentence;
after redaction `secret` must be gone and `[REDACTED:kind]` present.
"""

from __future__ import annotations

import base64
import random
import string

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64URL = ALNUM + "_-"


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    # At least one digit, one lower and one upper letter where the alphabet has them:
    # real tokens are random, and a token of only letters is not one.
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if n < 8 or all(any(c in s for c in cls) for cls in (LOWER, UPPER, DIGITS) if any(c in alphabet for c in cls)):
            return s


def _j(*parts: str) -> str:
    return "".join(parts)


def corpus(seed: int | None = None) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    r = lambda a, n: _r(rng, a, n)  # noqa: E731
    dash = "-" * 5
    entries: list[tuple[str, str, str]] = []

    def add(kind: str, secret: str, text: str | None = None) -> None:
        entries.append((kind, secret, text if text is not None else f"use {secret} here"))

    add("aws-access-key-id", _j("AK", "IA", r(UPPER + DIGITS, 16)))
    aws_secret = r(ALNUM + "/+", 40)
    add("aws-secret-key", aws_secret, f"AWS_SECRET_ACCESS_KEY={aws_secret}")
    pk = "\n".join(r(ALNUM + "+/", 64) for _ in range(6))
    block = _j(dash, "BEGIN RSA PRIV", "ATE KEY", dash, "\n", pk, "\n", dash, "END RSA PRIV", "ATE KEY", dash)
    add("private-key", pk.splitlines()[2], f"the key:\n{block}\nend")
    pgp = "\n".join(r(ALNUM + "+/", 64) for _ in range(4))
    add("private-key", pgp.splitlines()[1], _j(dash, "BEGIN PGP PRIV", "ATE KEY BLOCK", dash, "\n\n", pgp, "\n", dash, "END PGP PRIV", "ATE KEY BLOCK", dash))
    sa_id = r(HEX, 40)
    add("gcp-private-key-id", sa_id, _j('{"type": "service_account", "private_key', '_id": "', sa_id, '"}'))
    add("google-api-key", _j("AI", "za", r(B64URL, 35)))
    add("google-oauth-secret", _j("GOC", "SPX-", r(B64URL, 28)))
    add("google-oauth-token", _j("ya", "29.", r(B64URL, 80)))
    az = r(ALNUM + "+/", 86) + "=="
    add("azure-storage-key", az, f"DefaultEndpointsProtocol=https;AccountName=acct;Account{'Key'}={az};EndpointSuffix=core.windows.net")
    sig = r(ALNUM, 43) + "%3D"
    add("azure-sas-signature", sig, f"https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&{'sig'}={sig}")
    add("github-token", _j("gh", "p_", r(ALNUM, 36)))
    add("github-oauth-token", _j("gh", "o_", r(ALNUM, 36)))
    add("github-app-token", _j("gh", "s_", r(ALNUM, 36)))
    add("github-refresh-token", _j("gh", "r_", r(ALNUM, 76)))
    add("github-fine-grained-token", _j("github", "_pat_", r(ALNUM, 22), "_", r(ALNUM, 59)))
    add("gitlab-token", _j("gl", "pat-", r(B64URL, 20)))
    add("bitbucket-app-password", _j("AT", "BB", r(ALNUM, 32)))
    add("atlassian-api-token", _j("ATA", "TT3", r(B64URL, 180)))
    add("npm-token", _j("np", "m_", r(ALNUM, 36)))
    add("pypi-token", _j("py", "pi-AgEIcHlwaS5vcmc", r(B64URL, 70)))
    add("rubygems-token", _j("ruby", "gems_", r(HEX, 48)))
    add("dockerhub-token", _j("dckr", "_pat_", r(B64URL, 27)))
    add("openai-api-key", _j("s", "k-proj-", r(B64URL, 120)))
    add("openai-api-key", _j("s", "k-", r(ALNUM, 48)))
    add("anthropic-api-key", _j("sk-", "ant-api03-", r(B64URL, 93), "AA"))
    add("huggingface-token", _j("h", "f_", r(ALNUM, 34)))
    add("groq-api-key", _j("gs", "k_", r(ALNUM, 52)))
    add("replicate-token", _j("r", "8_", r(ALNUM, 37)))
    add("perplexity-api-key", _j("pp", "lx-", r(ALNUM, 48)))
    add("xai-api-key", _j("xa", "i-", r(ALNUM, 80)))
    add("stripe-secret-key", _j("sk", "_live_", r(ALNUM, 99)))
    add("stripe-secret-key", _j("sk", "_test_", r(ALNUM, 24)))
    add("stripe-restricted-key", _j("rk", "_live_", r(ALNUM, 99)))
    add("stripe-webhook-secret", _j("wh", "sec_", r(ALNUM, 32)))
    add("square-token", _j("EA", "AA", r(B64URL, 60)))
    add("square-token", _j("sq0", "atp-", r(B64URL, 22)))
    add("braintree-token", _j("access_token", "$production$", r(LOWER + DIGITS, 16), "$", r(HEX, 32)))
    add("shopify-token", _j("shp", "at_", r(HEX, 32)))
    add("twilio-api-key", _j("S", "K", r(HEX, 32)))
    add("twilio-account-sid", _j("A", "C", r(HEX, 32)))
    tw = r(HEX, 32)
    add("twilio-auth-token", tw, f"TWILIO_AUTH_TOKEN={tw}")
    add("sendgrid-api-key", _j("S", "G.", r(B64URL, 22), ".", r(B64URL, 43)))
    add("mailgun-api-key", _j("ke", "y-", r(HEX, 32)))
    add("mailchimp-api-key", _j(r(HEX, 32), "-us", str(rng.randint(1, 20))))
    add("slack-token", _j("xo", "xb-", r(DIGITS, 12), "-", r(DIGITS, 13), "-", r(ALNUM, 24)))
    add("slack-webhook", _j("https://hooks.slack", ".com/services/T", r(UPPER + DIGITS, 10), "/B", r(UPPER + DIGITS, 10), "/", r(ALNUM, 24)))
    add("discord-webhook", _j("https://discord.com/api/web", "hooks/", r(DIGITS, 18), "/", r(B64URL, 68)))
    add("discord-bot-token", _j("M", r(ALNUM, 23), ".", r(B64URL, 6), ".", r(B64URL, 38)))
    add("telegram-bot-token", _j(r(DIGITS, 10), ":A", "A", r(B64URL, 33)))
    add("teams-webhook", _j("https://acme.web", "hook.office.com/webhookb2/", r(HEX, 8), "-", r(HEX, 4), "@", r(HEX, 8), "/IncomingWebhook/", r(HEX, 32), "/", r(HEX, 8)))
    add("jwt", _j("ey", "J", r(B64URL, 30), ".ey", "J", r(B64URL, 60), ".", r(B64URL, 43)))
    add("url-password", r(ALNUM, 16), None)
    entries[-1] = ("url-password", entries[-1][1], f"clone https://deploy:{entries[-1][1]}@git.example.com/x.git")
    dbpw = r(ALNUM, 18)
    add("connection-string", dbpw, f"DATABASE_URL=postgres://app:{dbpw}@db.internal:5432/shop")
    mpw = r(ALNUM, 18)
    add("connection-string", mpw, f"mongodb+srv://svc:{mpw}@cluster0.example.net/db")
    add("bearer-token", r(B64URL + ".", 40), None)
    entries[-1] = ("bearer-token", entries[-1][1], f"curl -H 'Authorization: Bearer {entries[-1][1]}' https://api")
    basic = base64.b64encode(f"admin:{r(ALNUM, 14)}".encode()).decode()
    add("basic-auth", basic, f"Authorization: Basic {basic}")
    gen = r(ALNUM, 32)
    add("secret", gen, f"export SIGNING_KEY={gen}")
    tok = r(ALNUM, 28)
    add("secret", tok, f'"refresh_token": "{tok}"')
    pw = r(ALNUM, 12)
    add("password", pw, f"DB_PASSWORD={pw}")
    pw2 = r(ALNUM, 10)
    add("password", pw2, f"password: {pw2}")
    add("age-secret-key", _j("AGE-SECRET", "-KEY-1", r(UPPER + DIGITS, 58)))
    add("vault-token", _j("hv", "s.", r(B64URL, 90)))
    dd = r(HEX, 32)
    add("datadog-api-key", dd, f"DD_API_KEY={dd}")
    add("newrelic-key", _j("NR", "AK-", r(UPPER + DIGITS, 27)))
    add("heroku-api-key", _j("HR", "KU-", r(B64URL, 60)))
    add("digitalocean-token", _j("do", "p_v1_", r(HEX, 64)))
    add("linear-api-key", _j("lin", "_api_", r(ALNUM, 40)))
    add("notion-token", _j("sec", "ret_", r(ALNUM, 43)))
    add("doppler-token", _j("dp", ".st.", r(ALNUM, 43)))
    add("pulumi-token", _j("pu", "l-", r(HEX, 40)))
    add("terraform-cloud-token", _j(r(ALNUM, 14), ".atlas", "v1.", r(B64URL, 67)))
    add("flyio-token", _j("fo", "1_", r(B64URL, 43)))
    add("supabase-token", _j("sb", "p_", r(HEX, 40)))
    add("postman-api-key", _j("PM", "AK-", r(HEX, 24), "-", r(HEX, 34)))
    add("grafana-token", _j("gl", "sa_", r(ALNUM, 32), "_", r(HEX, 8)))
    add("databricks-token", _j("da", "pi", r(HEX, 32)))
    add("netlify-token", _j("nf", "p_", r(ALNUM, 36)))
    add("alibaba-access-key-id", _j("LT", "AI", r(ALNUM, 20)))
    add("alibaba-access-key-id", _j("LT", "AI", r(ALNUM, 12)))
    okta = _j("0", "0", r(B64URL, 40))
    add("okta-api-token", okta, f"curl -H 'Authorization: {'SS'}WS {okta}' https://acme.okta.com/api/v1/users")
    mapbox_payload = base64.urlsafe_b64encode(f'{{"u":"acme","a":"{r(LOWER + DIGITS, 25)}"}}'.encode()).decode().rstrip("=")
    add("mapbox-token", _j("s", "k.", mapbox_payload, ".", r(B64URL, 22)))
    sentry_payload = base64.b64encode(f'{{"iat":1700000000.1,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"acme"}}'.encode()).decode().rstrip("=")
    add("sentry-token", _j("sntr", "ys_", sentry_payload, "_", r(ALNUM + "+/", 43)))
    add("sentry-token", _j("sntr", "yu_", r(HEX, 64)))
    add("sentry-dsn", r(HEX, 32), None)
    entries[-1] = ("sentry-dsn", entries[-1][1], f"SENTRY_DSN=https://{entries[-1][1]}@o1.ingest.sentry.io/42")
    return entries


def kinds(entries) -> set[str]:
    return {k for k, _, _ in entries}
