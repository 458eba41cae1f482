"""A small driver for headless Chromium over the DevTools protocol, standard library only.

Chromium's `--remote-debugging-pipe` speaks the protocol over two pipes (it reads commands
on fd 3 and writes replies and events on fd 4, each message JSON ended by a NUL byte), so
no websocket library, no driver download and no port are needed: the system `chromium`
(Debian's package) is all. Used by tests/test_report.py.

`find_chromium()` says how to install Chromium when it is missing; the tests that need it
fail with that message (they are never skipped: a skipped browser test would hide exactly
the breakage it exists to catch).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INSTALL_HINT = (
    "Chromium is needed for the report's browser test and was not found. Install it with "
    "`bash .ci/install-chromium` (on Debian: `apt-get install chromium`), or point "
    "COGIT_CHROMIUM at a Chromium or Chrome binary."
)


def find_chromium() -> str | None:
    explicit = os.environ.get("COGIT_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(AssertionError):
    pass


class Browser:
    """One headless Chromium with one page, driven through the DevTools protocol."""

    def __init__(self, binary: str, profile: Path, width: int = 1280, height: int = 900):
        profile.mkdir(parents=True, exist_ok=True)
        cmd_r, cmd_w = os.pipe()  # we write commands, Chromium reads them on its fd 3
        evt_r, evt_w = os.pipe()  # Chromium writes on its fd 4, we read
        # Move the child's ends out of the way of 3 and 4 so the dup2s below cannot clobber each other.
        high_cmd, high_evt = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(evt_w, fcntl.F_DUPFD, 10)
        os.close(cmd_r)
        os.close(evt_w)

        def child_fds():
            os.dup2(high_cmd, 3)
            os.dup2(high_evt, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            # close_fds=False: pass_fds would make the parent's own fds 3 and 4 inheritable before
            # child_fds runs, and fails where the parent has none. Python's fds are not inheritable
            # by default, so only these two pipe ends reach Chromium.
            preexec_fn=child_fds, close_fds=False, start_new_session=True,
        )
        os.close(high_cmd)
        os.close(high_evt)
        self._out = os.fdopen(cmd_w, "wb", buffering=0)
        self._in = evt_r
        self._next = 0
        self._replies: dict[int, dict] = {}
        self.events: list[dict] = []
        self._cv = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session = None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.resize(width, height)

    # -- protocol --
    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._in, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cv:
                    self._closed = True
                    self._cv.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self._cv:
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self.events.append(msg)
                        if msg.get("method") == "Page.javascriptDialogOpening":
                            # A dialog blocks the page: note it (the test fails on it) and dismiss it.
                            threading.Thread(target=self._dismiss, args=(msg.get("sessionId"),), daemon=True).start()
                    self._cv.notify_all()

    def _dismiss(self, session) -> None:
        try:
            self._send("Page.handleJavaScriptDialog", {"accept": False}, session)
        except Exception:
            pass

    def _send(self, method: str, params: dict, session) -> int:
        with self._cv:
            self._next += 1
            mid = self._next
        msg = {"id": mid, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self._out.write(json.dumps(msg).encode() + b"\0")
        return mid

    def call(self, method: str, timeout: float = 30, **params) -> dict:
        mid = self._send(method, params, self.session)
        deadline = time.monotonic() + timeout
        with self._cv:
            while mid not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0 or getattr(self, "_closed", False):
                    raise BrowserError(f"no reply to {method} from Chromium: {self._stderr()}")
                self._cv.wait(left)
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str, since: int = 0, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        with self._cv:
            while True:
                for ev in self.events[since:]:
                    if ev.get("method") == method:
                        return ev
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"Chromium sent no {method} within {timeout} s")
                self._cv.wait(left)

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        return (self.proc.stderr.read() or b"").decode("utf-8", "replace")[-2000:]

    # -- page --
    def resize(self, width: int, height: int, mobile: bool = False) -> None:
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)

    def goto(self, url: str) -> None:
        mark = len(self.events)
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired", since=mark)

    def eval(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the middle of the element (scrolled into view first)."""
        box = self.eval(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing matches {selector!r}")
        x, y = box
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    KEYS = {"Tab": 9, "Enter": 13, "ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35, "Escape": 27}

    def press(self, key: str) -> None:
        """A real key press (keyDown with its text, then keyUp), as a person's keyboard sends it."""
        code = self.KEYS[key]
        down = {"type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        if key == "Enter":
            down["text"] = "\r"
        self.call("Input.dispatchKeyEvent", **down)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=key, windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        params = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        png = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return png

    # -- what went wrong --
    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, error log entries (CSP violations among them) and dialogs."""
        out = []
        with self._cv:
            events = list(self.events)
        for ev in events:
            m, p = ev.get("method"), ev.get("params") or {}
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails', {}).get('exception', {}).get('description') or p}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.append(f"console.{p.get('type')}: {[a.get('value', a.get('description')) for a in p.get('args', [])]}")
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append(f"log {p['entry'].get('level')}: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Page.javascriptDialogOpening":
                out.append(f"a {p.get('type')} dialog opened: {p.get('message')!r}")
        return out

    def requests(self) -> list[str]:
        with self._cv:
            return [ev["params"]["request"]["url"] for ev in self.events if ev.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self._out.close()
        except OSError:
            pass
        try:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        try:  # Chromium's helpers (renderer, zygote) are in the session it was started in
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.close(self._in)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
