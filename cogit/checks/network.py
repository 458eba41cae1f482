"""Remotes and the reflection endpoint answer (each time-capped; `--offline` skips both)."""

from __future__ import annotations

from cogit.checks import Finding
from cogit.errors import CogitError

REMOTE_TIMEOUT = 5.0
ENDPOINT_TIMEOUT = 3.0


def check_remotes(repo, offline: bool) -> list[Finding]:
    from cogit.store.git import repo as git
    from cogit.store.git import remotes as git_remotes
    from cogit.sync import transport

    remotes = git_remotes.remotes(repo)
    if not remotes:
        return [Finding("remotes", "ok", "no remotes (`cogit remote add NAME URL` to sync machines)")]
    if offline:
        return [Finding("remotes", "skipped", f"{len(remotes)} remote(s) not contacted (--offline)")]
    out = []
    for name, url in remotes.items():
        shown = transport.redact_url(url)
        try:
            refs = transport.ls_remote(url, REMOTE_TIMEOUT)
        except CogitError as e:
            out.append(Finding("remotes", "warn", f"{name} ({shown}) is unreachable: {e.message}",
                               "Sync waits until it answers; check the URL (`cogit remote list`) and the network.",
                               extra={"remote": name}))
            continue
        branches = sum(1 for r in refs if r.startswith("refs/heads/"))
        out.append(Finding("remotes", "ok", f"{name} ({shown}) answers ({branches} branch(es))", extra={"remote": name}))
    return out


def check_endpoint(config, offline: bool) -> list[Finding]:
    """GET {reflect.endpoint}/models, the OpenAI-compatible list every local server offers."""
    reflect = (config or {}).get("reflect") if isinstance(config, dict) else None
    endpoint = (reflect or {}).get("endpoint") if isinstance(reflect, dict) else None
    if not endpoint or not isinstance(endpoint, str):
        return [Finding("endpoint", "ok", "no reflection endpoint configured (the built-in reflector runs offline)")]
    if offline:
        return [Finding("endpoint", "skipped", f"{endpoint} not contacted (--offline)")]
    import json
    import urllib.error
    import urllib.request

    url = endpoint.rstrip("/") + "/models"
    hint = ("Start the model server (LM Studio, Ollama, llama.cpp's server...) or fix `reflect.endpoint` in "
            "this machine's machine-settings.json; until then reflection fails (see reflect-log).")
    if not url.startswith(("http://", "https://")):
        return [Finding("endpoint", "warn", f"reflect.endpoint {endpoint!r} is not an http(s) URL", hint)]
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"}),
                                    timeout=ENDPOINT_TIMEOUT) as response:
            body = response.read(1 << 20)
    except urllib.error.HTTPError as e:
        return [Finding("endpoint", "warn", f"{url} answered HTTP {e.code}", hint)]
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        return [Finding("endpoint", "warn", f"{url} is unreachable: {reason}", hint)]
    try:
        models = [m.get("id") for m in json.loads(body).get("data") or [] if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return [Finding("endpoint", "warn", f"{url} answered, but not with an OpenAI-compatible model list", hint)]
    return [Finding("endpoint", "ok", f"{endpoint} answers ({len(models)} model(s): {', '.join(map(str, models[:3]))})")]
