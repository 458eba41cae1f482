"""The `git` binary as cogit's transport: fetch, push and ls-remote through `git`.

Used where git (2.29 or newer) is on PATH (config sync.transport: auto|git|dulwich;
transport.py picks): git's C pack code is several times cheaper than dulwich's pure
Python. Same contract, results and errors as the dulwich half of transport.py.

Everything from outside is hostile, so every git process runs with
* an explicit ``--git-dir`` of the memory repository (never one found from the current
  directory), cwd ``/``;
* an environment without any ``GIT_*`` variable of the caller (cogit runs inside other
  tools' git hooks), without system or global git config (``GIT_CONFIG_NOSYSTEM``,
  ``GIT_CONFIG_GLOBAL=/dev/null``: a user's config can run code, rewrite URLs, add hooks),
  without prompts (``GIT_TERMINAL_PROMPT=0``, no askpass);
* ``-c`` settings that turn off hooks, ``ext::`` and every protocol cogit does not
  support, background gc/maintenance and submodules, and that make git fsck every
  fetched object (``transfer.fsckObjects``). Tree entry names git's fsck would refuse
  are reported as warnings instead, because cogit's own check (incoming.py) refuses
  them anyway and names the commit and the entry, as it does for the dulwich transport;
* an inactivity bound: git runs with ``--progress``, and a git that prints nothing for
  `timeout` seconds is killed with all its children (ssh, remote helpers).

Credentials, as with dulwich: ssh runs the same ssh command (explicit, else
$GIT_SSH_COMMAND / $GIT_SSH, else ``ssh``) with BatchMode and timeouts, so ssh-agent and
~/.ssh keep working; http(s) asks the user's git credential helpers (the
``credential.*`` settings of the user's own git config are passed on, and its http proxy
and CA settings, nothing else of it).

Fetched branches land under a private ref namespace (``refs/cogit/incoming/<id>/``) for
the length of the fetch only, then are deleted: the remote-tracking refs are set by
integrate.py after validation, so a refused pull never makes crafted commits "known".
"""

from __future__ import annotations

import math
import os
import re
import selectors
import signal
import subprocess
import time
import uuid
from pathlib import Path

from cogit.errors import NotInitialized, RemoteError
from cogit.sync import remotes as t

MIN_VERSION = (2, 29)  # fetch --no-write-fetch-head
INCOMING = "refs/cogit/incoming/"
PROTOCOLS = ("file", "git", "http", "https", "ssh")

# fsck message ids about tree entry names: cogit refuses every one of these trees itself,
# naming the commit and the entry (incoming.py), so git only warns. Every other fsck
# check (malformed objects, bad dates, emails, sort order, duplicates) stays an error.
TREE_NAME_CHECKS = ("hasDot", "hasDotdot", "hasDotgit", "fullPathname", "emptyName",
                    "badFilemode", "zeroPaddedFilemode", "gitmodulesSymlink", "gitmodulesMissing")

_program: list = []  # cache: [path or None]


def program() -> str | None:
    """The git binary to use, or None (not on PATH, or older than MIN_VERSION).

    Only from the trusted part of PATH (cogit/programs.py): never a `git` inside the agent's
    folder, which direnv may have put first on PATH."""
    if not _program:
        from cogit.programs import which

        found = which("git")
        if found:
            try:
                out = subprocess.run([found, "--version"], capture_output=True, text=True,
                                     timeout=10, env=env(), cwd="/").stdout
                m = re.search(r"(\d+)\.(\d+)", out)
                if not m or (int(m.group(1)), int(m.group(2))) < MIN_VERSION:
                    found = None
            except (OSError, subprocess.TimeoutExpired):
                found = None
        _program.append(found)
    return _program[0]


def env() -> dict[str, str]:
    """The caller's environment without GIT_*, user/system git config or prompts."""
    out = t.clean_env()
    for key in ("SSH_ASKPASS", "SSH_ASKPASS_REQUIRE"):
        out.pop(key, None)
    out.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               LC_ALL="C", LANGUAGE="C")
    return out


# --------------------------------------------------------------------------- public API


def fetch(repo_path: Path, url: str, timeout: float, progress=None, *,
          ssh_command: str | None = None) -> dict[str, bytes]:
    gitdir = _gitdir(repo_path)
    ns = f"{INCOMING}{os.getpid()}-{uuid.uuid4().hex[:8]}/"
    args = [*_base(gitdir, url, timeout, ssh_command), "fetch", "--progress", "--no-tags",
            "--no-write-fetch-head", "--no-recurse-submodules", "--no-auto-gc",
            "--no-auto-maintenance", *_upload_pack(url), _git_url(url), f"+refs/heads/*:{ns}*"]
    try:
        proc = _run(args, timeout, progress, url, "fetch from")
        if proc.returncode != 0:
            raise _failure(proc.stderr, url, "fetch from")
    finally:
        fetched = _drop_incoming(gitdir, timeout)
    return {ref[len(ns):]: sha for ref, sha in fetched.items() if ref.startswith(ns)}


def push(repo_path: Path, url: str, updates: dict[str, bytes], old: dict[str, bytes | None],
         timeout: float, progress=None, *, force: bool = False,
         ssh_command: str | None = None) -> dict[str, bytes]:
    gitdir = _gitdir(repo_path)
    missing = _missing(gitdir, set(updates.values()), timeout)
    for branch, sha in updates.items():
        if sha in missing:
            raise ValueError(f"push {branch}: {sha.decode()} is not in {repo_path}")
    stale: dict[str, str] = {}
    specs: list[str] = []
    leases: list[str] = []
    for branch, sha in sorted(updates.items()):
        ref = t._ref(branch).decode()
        expected = t._sha(old[branch]) if old.get(branch) is not None else None
        if branch in old:
            # git lets a matching lease overwrite anything: the fast-forward check is ours.
            if expected is not None and expected != sha and not force and not _descends(gitdir, sha, expected, timeout):
                stale[branch] = f"{t._short(sha)} does not contain the remote's {t._short(expected)}"
                continue
            # A lease that holds forces the update; a '+' would override the lease.
            leases.append(f"--force-with-lease={ref}:{expected.decode() if expected else ''}")
            specs.append(f"{sha.decode()}:{ref}")
        else:
            specs.append(f"{'+' if force else ''}{sha.decode()}:{ref}")
    if stale:  # refuse before sending anything
        raise t._rejected(url, stale, non_fast_forward=True)
    args = [*_base(gitdir, url, timeout, ssh_command), "push", "--porcelain", "--progress",
            "--no-verify", "--no-recurse-submodules", *_receive_pack(url), *leases, _git_url(url), *specs]
    proc = _run(args, timeout, progress, url, "push to")
    sent, failed = {}, {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or len(parts[0]) != 1 or ":" not in parts[1]:
            continue
        flag, dest, summary = parts[0], parts[1].rsplit(":", 1)[1], parts[2]
        branch = t._branch_name(dest.encode())
        if flag == "!":
            failed[branch] = summary.strip()
        elif flag in " +*" and branch in updates:
            sent[branch] = updates[branch]
    if failed:
        stale = all(any(m in r.lower() for m in t._STALE_MARKERS) for r in failed.values())
        raise t._rejected(url, failed, non_fast_forward=stale)
    if proc.returncode != 0:
        raise _failure(proc.stderr, url, "push to")
    return sent


def ls_remote(url: str, timeout: float, *, ssh_command: str | None = None) -> dict[str, bytes]:
    args = [*_base(None, url, timeout, ssh_command), "ls-remote", _git_url(url)]
    proc = _run(args, timeout, None, url, "list")
    if proc.returncode != 0:
        raise _failure(proc.stderr, url, "list")
    out = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        sha, _, ref = line.partition("\t")
        if ref and not ref.endswith("^{}"):
            out[ref] = sha.encode()
    return out


# --------------------------------------------------------------------------- running git


def _base(gitdir: Path | None, url: str, timeout: float, ssh_command: str | None) -> list[str]:
    """`git` with the repository named and every setting that keeps a remote harmless."""
    secs = str(max(1, math.ceil(timeout)))
    args = [program() or "git"]
    if gitdir is not None:
        args += ["--git-dir", str(gitdir)]
    config = {
        "core.hooksPath": os.devnull, "core.fsmonitor": "false", "core.askPass": "",
        "protocol.allow": "never", "protocol.ext.allow": "never",
        "transfer.fsckObjects": "true", "fetch.fsckObjects": "true", "receive.fsckObjects": "true",
        "gc.auto": "0", "maintenance.auto": "false", "fetch.writeCommitGraph": "false",
        "submodule.recurse": "false", "fetch.recurseSubmodules": "false",
        "http.lowSpeedLimit": "1", "http.lowSpeedTime": secs, "http.followRedirects": "initial",
        "credential.interactive": "false",
        # Blobs over 1 MiB (no memory object is that big) are streamed, never held whole:
        # a 256 MiB blob of zeros from a hostile remote costs no memory here, and cogit's
        # tree check refuses it from its header (store/git/object_sizes.py object_header). git does not
        # pass -c settings to a local remote's upload-pack: see _upload_pack.
        "core.bigFileThreshold": "1m",
    }
    args += [a for k, v in config.items() for a in ("-c", f"{k}={v}")]
    args += [a for p in PROTOCOLS for a in ("-c", f"protocol.{p}.allow=always")]
    args += [a for name in TREE_NAME_CHECKS for a in ("-c", f"fetch.fsck.{name}=warn")]
    kind = t.remote_kind(url)
    if kind == "ssh":
        args += ["-c", f"core.sshCommand={_ssh(ssh_command, secs)}"]
    elif kind == "http" and urlsplit_password(url) is None:
        args += [a for kv in _credential_config(timeout) for a in ("-c", kv)]
    return args


def urlsplit_password(url: str) -> str | None:
    from urllib.parse import urlsplit

    return urlsplit(url).password


def _ssh(explicit: str | None, secs: str) -> str:
    """The ssh command git runs: the same one the dulwich transport runs, same options."""
    import shlex

    command = t._ssh_command(explicit)
    words = shlex.split(command) or ["ssh"]
    if Path(words[0]).name in ("ssh", "ssh.exe"):
        command += (f" -x -o BatchMode=yes -o ConnectTimeout={secs}"
                    f" -o ServerAliveInterval={secs} -o ServerAliveCountMax=2")
    return command


_credentials: list = []  # cache: [list of "key=value"]
# Of the user's git config, what an https remote needs and runs no code the user did not
# pick: credential helpers and names, and the proxy and CA settings (a company network's).
_PASSED_ON = r"^credential\.|^http\.(.*\.)?(sslcainfo|sslcapath|sslbackend|proxy)$"


def _credential_config(timeout: float) -> list[str]:
    """The credential.* (and http proxy/CA) settings of the user's own git config.

    The dulwich transport asks `git credential fill` with the user's config; git run
    without that config would find no helper, so these (and only these) are passed on.
    """
    if not _credentials:
        found: list[str] = []
        try:
            proc = subprocess.run([program() or "git", "config", "--null", "--get-regexp", _PASSED_ON],
                                  capture_output=True, timeout=timeout, env=t.clean_env(), cwd="/")
            for entry in proc.stdout.decode("utf-8", "replace").split("\0"):
                key, _, value = entry.partition("\n")
                if key and "=" not in key:
                    found.append(f"{key}={value}")
        except (OSError, subprocess.TimeoutExpired):
            pass
        _credentials.append(found)
    return _credentials[0]


def _run(args: list[str], timeout: float, progress, url: str, action: str,
         stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run git; kill it (and its children) after `timeout` seconds without a word from it."""
    try:
        proc = subprocess.Popen(args, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), cwd="/",
                                start_new_session=True)
    except OSError as e:
        raise RemoteError(f"cannot {action} {t._redact(url)}: cannot run git: {e.strerror or e}",
                          "install git or set sync.transport: dulwich in $COGIT_HOME/machine-settings.json") from e
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    out: list[bytes] = []
    err: list[bytes] = []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    last = time.monotonic()
    try:
        while sel.get_map():
            events = sel.select(max(0.0, last + timeout - time.monotonic()))
            if not events:
                if time.monotonic() - last >= timeout:
                    _kill(proc)
                    raise RemoteError(f"cannot {action} {t._redact(url)}: no answer within {timeout:g}s",
                                      "check the URL and that the server is up; `cogit sync` retries later")
                continue
            for key, _ in events:
                data = os.read(key.fd, 65536)
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                last = time.monotonic()
                key.data.append(data)
                if key.data is err and progress:
                    progress(data)
        try:
            proc.wait(max(timeout, 1.0))
        except subprocess.TimeoutExpired:  # closed its output but hangs on
            _kill(proc)
            raise RemoteError(f"cannot {action} {t._redact(url)}: git did not finish within {timeout:g}s",
                              "check the URL and that the server is up; `cogit sync` retries later") from None
    except BaseException:
        _kill(proc)
        raise
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
    return subprocess.CompletedProcess(args, proc.returncode, b"".join(out), b"".join(err))


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _local(args: list[str], timeout: float, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """A git command on the local repository only (no network)."""
    try:
        return subprocess.run(args, input=stdin, capture_output=True, env=env(), cwd="/",
                              timeout=max(timeout, 30.0))
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RemoteError(f"cannot run git {args[3] if len(args) > 3 else ''}: {e}",
                          "install git, or set sync.transport: dulwich in $COGIT_HOME/machine-settings.json") from e


def _gitdir(repo_path: Path) -> Path:
    gitdir = Path(repo_path) / ".git"
    if not (gitdir / "HEAD").is_file():
        raise NotInitialized(f"{repo_path} is not a git repository", "run `cogit init` first")
    return gitdir


def _receive_pack(url: str) -> list[str]:
    """For a local remote, the receiving side runs on this machine as this user: it runs
    with hooks off, so a repository someone else prepared cannot run code through a push
    (what dulwich's local push does too). A network remote's hooks are its server's."""
    if t.remote_kind(url) not in ("path", "file"):
        return []
    import shlex

    return ["--receive-pack=" + " ".join([shlex.quote(program() or "git"), "-c",
                                           shlex.quote("core.hooksPath=" + os.devnull), "receive-pack"])]


def _upload_pack(url: str) -> list[str]:
    """For a local remote, the sending side runs on this machine too, and git gives it none
    of our -c settings: it streams blobs over 1 MiB rather than holding them (a 256 MiB blob
    of zeros there would otherwise cost its size in memory here)."""
    if t.remote_kind(url) not in ("path", "file"):
        return []
    import shlex

    return ["--upload-pack=" + " ".join([shlex.quote(program() or "git"), "-c", "core.bigFileThreshold=1m",
                                          "-c", shlex.quote("core.hooksPath=" + os.devnull), "upload-pack"])]


def _git_url(url: str) -> str:
    """What git gets: local remotes as the absolute path (never resolved against a cwd)."""
    kind = t.remote_kind(url)
    if kind in ("path", "file"):
        path = str(t._local_path(url, kind))
        return path
    if url.startswith("-"):
        raise RemoteError(f"refusing remote {url!r}")
    return url


def _drop_incoming(gitdir: Path, timeout: float) -> dict[str, bytes]:
    """Every ref under the private namespace (this fetch's and any a crash left), deleted."""
    base = [program() or "git", "--git-dir", str(gitdir)]
    proc = _local([*base, "for-each-ref", "--format=%(objectname) %(refname)", INCOMING], timeout)
    refs = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        sha, _, ref = line.partition(" ")
        if ref:
            refs[ref] = sha.encode()
    if refs:
        script = "".join(f"delete {ref}\n" for ref in refs).encode()
        _local([*base, "-c", "core.hooksPath=" + os.devnull, "update-ref", "--no-deref", "--stdin"], timeout, script)
    return refs


def _missing(gitdir: Path, shas: set[bytes], timeout: float) -> set[bytes]:
    proc = _local([program() or "git", "--git-dir", str(gitdir), "cat-file", "--batch-check"],
                  timeout, b"".join(s + b"\n" for s in shas))
    return {line.split()[0] for line in proc.stdout.splitlines() if line.endswith(b" missing")}


def _descends(gitdir: Path, new: bytes, old: bytes, timeout: float) -> bool:
    """Is `old` an ancestor of `new`? (False when `old` is not here: commits we never fetched.)"""
    proc = _local([program() or "git", "--git-dir", str(gitdir), "merge-base", "--is-ancestor",
                   old.decode(), new.decode()], timeout)
    return proc.returncode == 0


# --------------------------------------------------------------------------- errors

_BOILERPLATE = ("could not read from remote repository", "please make sure you have the correct",
                "and the repository exists")


def _failure(stderr: bytes, url: str, action: str) -> RemoteError:
    """git's complaint as the RemoteError the dulwich transport would raise."""
    text = stderr.decode("utf-8", "replace")
    lines = [ln.strip() for ln in re.split(r"[\r\n]+", text) if ln.strip()]
    lines = [ln for ln in lines if not re.match(r"^(remote: )?(counting|compressing|writing|total|"
                                                r"resolving|enumerating|receiving|unpacking)", ln, re.I)]
    low = text.lower()
    shown = t._redact(url)
    hint = "check the URL and that the server is up; `cogit sync` retries later"
    if ("terminal prompts disabled" in low or "authentication failed" in low
            or "could not read username" in low or "could not read password" in low):
        return RemoteError(f"cannot {action} {shown}: the server wants credentials",
                           "store them with your git credential helper (a `git clone` of the URL "
                           "does it), or use an ssh remote")
    if ("does not appear to be a git repository" in low or "not found" in low
            or "repository not exported" in low or "not a git repository" in low):
        return RemoteError(f"cannot {action} {shown}: not a git repository", hint)
    if "git-http-push failed" in low or "dumb http" in low or "webdav" in low:
        return RemoteError(f"cannot {action} {shown}: the server does not speak git's smart HTTP protocol", hint)
    if "fsck" in low or "index-pack" in low:
        return RemoteError(f"cannot {action} {shown}: the remote sent objects git's fsck refuses: "
                           + _one(lines), "Local memory is unchanged. Check the URL with `cogit remote list` "
                           "(a crafted or damaged repository?).")
    m = re.search(r"errno=([^\n]+)", text) or re.search(r"(Connection refused|Couldn't connect to server|"
                                                        r"Could not resolve host[^\n]*|timed out)", text)
    if m:
        return RemoteError(f"cannot {action} {shown}: {m.group(1).strip()}", hint)
    return RemoteError(f"cannot {action} {shown}: {_one(lines)}", hint)


def _one(lines: list[str]) -> str:
    keep = [ln[len("fatal: "):] if ln.startswith("fatal: ") else ln for ln in lines
            if not any(b in ln.lower() for b in _BOILERPLATE)]
    return " | ".join(dict.fromkeys(keep))[:300] or "git failed"
