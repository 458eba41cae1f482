"""Real git servers on 127.0.0.1 for sync tests, as pytest fixtures.

Import the fixtures into a test module (`from gitservers import git_daemon`) or register
this module as a plugin from conftest (`pytest_plugins = ["gitservers"]`).

Each server fixture yields a `RemoteRepo`: a str holding the URL of an empty bare
repository, with `.path` (the repository on disk, to add hooks or inspect refs) and
`.kind`. Servers are stopped when the test ends.

* `bare_repo`    a path on disk (``/tmp/.../srv/remote.git``)
* `file_repo`    the same as a ``file://`` URL
* `git_daemon`   ``git://127.0.0.1:PORT/remote.git`` (git daemon, receive-pack on)
* `git_http`     ``http://127.0.0.1:PORT/remote.git`` (git http-backend behind a
                 small threaded HTTP server in this process)
* `git_remote`   parametrised over all of the above

Nothing touches the real home directory: `git_env` points HOME (for git subprocesses
and for in-process dulwich) at a temporary directory and removes inherited `GIT_*`
variables, which a git hook running the tests would otherwise leak in.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote

import pytest

GIT = shutil.which("git")
REPO_NAME = "remote.git"
START_TIMEOUT = 10.0

# Never a skip: without git these tests must fail loudly, not pass by not running.
requires_git = pytest.mark.requires_git


def silent_server():
    """A socket that accepts connections (via the backlog) and never says a word."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    return s


class RemoteRepo(str):
    """A remote URL that also knows where its bare repository lives on disk."""

    path: Path
    kind: str

    def __new__(cls, url: str, path: Path, kind: str) -> "RemoteRepo":
        obj = super().__new__(cls, url)
        obj.path = path
        obj.kind = kind
        return obj


# --------------------------------------------------------------------------- environment


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """os.environ without GIT_* and with HOME/XDG pointing at a scratch home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
    )
    env.update(extra)
    return env


def write_gitconfig(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n"
        "[safe]\n\tdirectory = *\n"
        "[protocol \"file\"]\n\tallow = always\n"
    )


@pytest.fixture
def git_env(tmp_path_factory, monkeypatch) -> dict[str, str]:
    """Env for git subprocesses; also isolates this process (HOME, no GIT_*)."""
    home = tmp_path_factory.mktemp("home")
    write_gitconfig(home)
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    env = clean_env(home)
    for key in ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"):
        monkeypatch.setenv(key, env[key])
    return env


def git(*args: str, cwd: str | os.PathLike | None = None, env: dict[str, str],
        check: bool = True, timeout: float = 60) -> str:
    """Run the git binary; return stdout (raise with stderr in the message on failure).

    Without cwd, run in the scratch home, so that no repository around the test run
    (the developer's checkout) lends its config.
    """
    proc = subprocess.run(
        [GIT or "git", *args], cwd=cwd if cwd is not None else env["HOME"], env=env,
        capture_output=True, text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def init_bare(path: Path, env: dict[str, str]) -> Path:
    git("init", "--quiet", "--bare", "--initial-branch=main", str(path), env=env)
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen | None = None,
                  timeout: float = START_TIMEOUT) -> bool:
    """Wait until 127.0.0.1:port accepts connections (False if proc died or time ran out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


def stop_process(proc: subprocess.Popen) -> None:
    """Stop a server we started in its own session: its process group, by id."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    else:
        # The daemon is gone; its per-connection children may not be.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# --------------------------------------------------------------------------- servers


class _GitHTTPHandler(BaseHTTPRequestHandler):
    """Runs `git http-backend` once per request, CGI style, as the current user.

    (http.server's CGI handler would drop to `nobody` when run as root, and git then
    refuses the root-owned repository as of "dubious ownership".)
    """

    server: "_GitHTTPServer"

    def do_GET(self) -> None:
        self._run_backend()

    def do_POST(self) -> None:
        self._run_backend()

    def log_message(self, format: str, *args) -> None:  # keep test output quiet
        pass

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _run_backend(self) -> None:
        path, _, query = self.path.partition("?")
        body = self._read_body()
        env = dict(self.server.backend_env)
        env.update(
            GATEWAY_INTERFACE="CGI/1.1",
            SERVER_PROTOCOL=self.request_version,
            REQUEST_METHOD=self.command,
            PATH_INFO=unquote(path),
            QUERY_STRING=query,
            CONTENT_TYPE=self.headers.get("Content-Type", ""),
            CONTENT_LENGTH=str(len(body)),
            REMOTE_ADDR=self.client_address[0],
            GIT_PROJECT_ROOT=str(self.server.project_root),
            GIT_HTTP_EXPORT_ALL="1",
        )
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["HTTP_GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        proc = subprocess.run(
            [GIT or "git", "http-backend"], input=body, env=env, capture_output=True,
            timeout=60,
        )
        head, payload = _split_cgi_output(proc.stdout)
        if not head:
            msg = proc.stderr or b"git http-backend produced no response"
            self.send_response(500)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _split_cgi_output(out: bytes) -> tuple[bytes, bytes]:
    """CGI output is headers, a blank line, then the body."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        i = out.find(sep)
        if i >= 0:
            return out[:i], out[i + len(sep):]
    return b"", b""


class _GitHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, project_root: Path, backend_env: dict[str, str]):
        super().__init__(("127.0.0.1", 0), _GitHTTPHandler)
        self.project_root = project_root
        self.backend_env = backend_env


@contextmanager
def run_http_backend(project_root: Path, env: dict[str, str]) -> Iterator[int]:
    """Serve every repository under project_root over smart HTTP; yield the port."""
    backend_env = dict(env)
    # Trust the repositories whoever owns them (the backend runs as this user anyway).
    backend_env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="safe.directory",
                       GIT_CONFIG_VALUE_0="*")
    server = _GitHTTPServer(project_root, backend_env)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="git-http", daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        if not wait_for_port(port):
            raise RuntimeError("the git HTTP server did not start")
        yield port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def run_git_daemon(base_path: Path, env: dict[str, str]) -> Iterator[int]:
    """Run `git daemon` for every repository under base_path; yield the port."""
    last_err = ""
    for _attempt in range(5):  # the free port can be taken before the daemon binds it
        port = free_port()
        proc = subprocess.Popen(
            [GIT or "git", "daemon", "--export-all", "--enable=receive-pack",
             "--informative-errors", f"--base-path={base_path}", "--listen=127.0.0.1",
             f"--port={port}", "--reuseaddr", str(base_path)],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )
        if wait_for_port(port, proc):
            try:
                yield port
            finally:
                stop_process(proc)
                proc.stderr.close()
            return
        stop_process(proc)
        last_err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
    raise RuntimeError(f"git daemon did not start: {last_err}")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def bare_repo(tmp_path, git_env) -> Iterator[RemoteRepo]:
    path = init_bare(tmp_path / "srv" / REPO_NAME, git_env)
    yield RemoteRepo(str(path), path, "path")


@pytest.fixture
def file_repo(tmp_path, git_env) -> Iterator[RemoteRepo]:
    path = init_bare(tmp_path / "srv" / REPO_NAME, git_env)
    yield RemoteRepo(path.as_uri(), path, "file")


@pytest.fixture
def git_daemon(tmp_path, git_env) -> Iterator[RemoteRepo]:
    root = tmp_path / "daemon"
    path = init_bare(root / REPO_NAME, git_env)
    with run_git_daemon(root, git_env) as port:
        yield RemoteRepo(f"git://127.0.0.1:{port}/{REPO_NAME}", path, "git")


@pytest.fixture
def git_http(tmp_path, git_env) -> Iterator[RemoteRepo]:
    root = tmp_path / "http"
    path = init_bare(root / REPO_NAME, git_env)
    git("config", "http.receivepack", "true", cwd=path, env=git_env)
    with run_http_backend(root, git_env) as port:
        yield RemoteRepo(f"http://127.0.0.1:{port}/{REPO_NAME}", path, "http")


_KINDS = {"path": "bare_repo", "file": "file_repo", "git": "git_daemon", "http": "git_http"}


@pytest.fixture(params=list(_KINDS))
def git_remote(request) -> RemoteRepo:
    """Each kind of remote in turn."""
    return request.getfixturevalue(_KINDS[request.param])
