"""The dulwich clients of the transport: a client for a URL, configured with cogit's
timeouts, credentials and ssh command.

Split from cogit/sync/transport.py. dulwich is imported inside the functions, as there.
"""

from __future__ import annotations

import math
import shlex
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

from cogit.errors import RemoteError
from cogit.sync.remotes import _local_path, _ssh_command, clean_env, remote_kind


# --------------------------------------------------------------------------- clients


def _client(url: str, timeout: float, ssh_command: str | None):
    """A dulwich client and the remote path, configured with our timeouts and env."""
    from dulwich.client import LocalGitClient, get_transport_and_path

    kind = remote_kind(url)
    if kind in ("path", "file"):
        # Built here rather than by dulwich: dulwich would treat a path with a colon
        # as scp-style, and does not undo %-escapes of file:// URLs.
        return LocalGitClient(), str(_local_path(url, kind))
    if kind == "http":
        return get_transport_and_path(url, pool_manager=_http_pool(url, timeout))
    if kind == "ssh":
        client, path = get_transport_and_path(url, ssh_command=_ssh_command(ssh_command))
        client.ssh_vendor = _ssh_vendor(timeout)
        return client, path
    return get_transport_and_path(url)


def _http_pool(url: str, timeout: float):
    """urllib3 pool with our timeout and no connect retries (retries multiply the wait)."""
    import functools

    import urllib3
    from dulwich.client import default_urllib3_manager

    retries = urllib3.Retry(total=5, connect=0, read=0, status=0, other=0, redirect=5)
    has_password = urlsplit(url).password is not None
    return default_urllib3_manager(
        None, base_url=url, timeout=timeout,
        pool_manager_cls=functools.partial(urllib3.PoolManager, retries=retries),
        proxy_manager_cls=functools.partial(urllib3.ProxyManager, retries=retries),
        auth_callback=None if has_password else _git_credentials(timeout),
    )


def _git_credentials(timeout: float):
    """An HTTP auth callback that asks the user's git credential helpers, never a person.

    `git credential fill` runs whatever helper the user configured (a keychain, a
    store, a token manager); prompts are disabled, because cogit may run in a hook
    with no terminal. One answer per request: if the server refuses it, we stop.
    """
    from cogit.programs import which

    program = which("git")  # never a git from the agent's folder
    if program is None:
        return None

    def callback(request_url: str, www_authenticate: str, attempt: int):
        if attempt > 1:
            return None
        parts = urlsplit(request_url)
        lines = [f"protocol={parts.scheme}", f"host={parts.netloc.rsplit('@', 1)[-1]}",
                 f"path={parts.path.lstrip('/')}"]
        if parts.username:
            lines.append(f"username={unquote(parts.username)}")
        env = clean_env()
        env.update(GIT_TERMINAL_PROMPT="0")
        env.pop("SSH_ASKPASS", None)
        try:
            proc = subprocess.run([program, "credential", "fill"], input="\n".join(lines) + "\n\n",
                                  capture_output=True, text=True, env=env, timeout=timeout, cwd="/")
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode != 0:
            return None
        found = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
        if not found.get("username"):
            return None
        return {"username": found["username"], "password": found.get("password", "")}

    return callback


def _ssh_vendor(timeout: float):
    """dulwich's subprocess ssh vendor, with a clean env, bounded waits and no prompts."""
    from dulwich.client import SSHVendor, StrangeHostname, SubprocessWrapper
    from dulwich.protocol import DEFAULT_GIT_PROTOCOL_VERSION_FETCH

    secs = str(max(1, math.ceil(timeout)))

    class _Vendor(SSHVendor):
        def run_command(self, host, command, username=None, port=None, password=None,
                        key_filename=None, ssh_command=None, protocol_version=None):
            if password is not None:
                raise RemoteError("ssh passwords are not supported",
                                  "use a key (ssh-agent) for ssh remotes")
            args = [*shlex.split(ssh_command or "ssh"), "-x"]
            if Path(args[0]).name in ("ssh", "ssh.exe"):
                # OpenSSH: fail instead of prompting (a hook has no terminal), and give
                # up on a host that does not answer.
                args += ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={secs}",
                         "-o", f"ServerAliveInterval={secs}", "-o", "ServerAliveCountMax=2"]
            if port:
                args += ["-p", str(port)]
            if key_filename:
                args += ["-i", str(key_filename)]
            if protocol_version is None:
                protocol_version = DEFAULT_GIT_PROTOCOL_VERSION_FETCH
            if protocol_version > 0:
                args += ["-o", f"SetEnv GIT_PROTOCOL=version={protocol_version}"]
            if username:
                host = f"{username}@{host}"
            if host.startswith("-"):
                raise StrangeHostname(hostname=host)
            proc = subprocess.Popen(
                [*args, host, command], bufsize=0, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(),
            )
            return SubprocessWrapper(proc)

    return _Vendor()
