""".ci/install-chromium waits for another apt instead of failing at once (issue 24, part 6).

The real apt cannot be held busy safely in a test (it is the machine's), so `apt-get` here is a
stand-in on PATH that answers the way apt 2.6 does while another process holds its lock: the
lists lock refusal of `apt-get update` ("Could not get lock /var/lib/apt/lists/lock", exit 100,
which DPkg::Lock::Timeout does not wait for) and the frontend lock of `apt-get install`. The
script itself runs for real, in bash, as a subprocess. Done by hand on a Debian machine: the
real apt-get with the real locks held by an fcntl holder (see the commit that added this).
"""
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "install-chromium"

FAKE_APT = r"""#!/bin/sh
# Stand-in for apt-get: refuses with apt's lock message for the first $BUSY calls.
echo "$*" >> "$LOG"
n=$(cat "$COUNT" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > "$COUNT"
if [ "$n" -le "$BUSY" ]; then
    echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
    echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
    exit 100
fi
case " $* " in *" install "*)
    printf '#!/bin/sh\necho Chromium 1.0\n' > "$BIN/chromium"; chmod +x "$BIN/chromium" ;;
esac
exit 0
"""


def machine(tmp_path: Path, busy: int) -> dict:
    """A PATH holding the stand-in apt-get, an `id` that says root, and the few tools the
    script uses, but no browser."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("bash", "grep", "mktemp", "cat", "sleep", "rm", "sh"):
        os.symlink(shutil.which(tool), bin_ / tool)
    (bin_ / "apt-get").write_text(FAKE_APT)
    (bin_ / "id").write_text("#!/bin/sh\necho 0\n")
    for f in ("apt-get", "id"):
        (bin_ / f).chmod(0o755)
    return {"PATH": str(bin_), "BIN": str(bin_), "BUSY": str(busy), "LOG": str(tmp_path / "apt.log"),
            "COUNT": str(tmp_path / "count"), "TMPDIR": str(tmp_path), "HOME": str(tmp_path)}


def run(env: dict) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    done = subprocess.run([shutil.which("bash"), str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - start


def test_waits_while_another_apt_holds_the_lock_then_installs(tmp_path):
    env = machine(tmp_path, busy=2)
    done, _ = run(env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{env['BIN']}/chromium\n"
    calls = Path(env["LOG"]).read_text().splitlines()
    # update refused twice, then update and install, each with apt's own lock wait
    assert [c.split()[2] for c in calls] == ["update", "update", "update", "install"]
    assert all(c.startswith("-o DPkg::Lock::Timeout=") for c in calls)
    assert "another apt holds its lock (held by process 4242 (apt-get)); waiting up to" in done.stderr
    assert done.stderr.count("waiting up to") == 1  # said once, not at every try
    assert "Could not get lock" not in done.stderr  # apt's refusals while we waited are not noise


def test_gives_up_at_the_deadline_and_says_what_to_do(tmp_path):
    env = machine(tmp_path, busy=1000) | {"COGIT_APT_LOCK_WAIT": "3"}
    done, took = run(env)
    assert done.returncode == 100
    assert done.stdout == ""
    assert "Could not get lock /var/lib/apt/lists/lock" in done.stderr  # apt's own words, at the end
    assert "another apt still held its lock after 3 s; run this again when it is done, or set COGIT_APT_LOCK_WAIT" in done.stderr
    assert 3 <= took < 30
    assert "install" not in Path(env["LOG"]).read_text()


@pytest.mark.parametrize("value", ["ten", "-1", "1.5"])
def test_a_lock_wait_that_is_not_seconds_is_refused(tmp_path, value):
    done, _ = run(machine(tmp_path, busy=0) | {"COGIT_APT_LOCK_WAIT": value})
    assert done.returncode == 1
    assert f"COGIT_APT_LOCK_WAIT={value} is not a number of seconds" in done.stderr


def test_another_failure_is_not_waited_for(tmp_path):
    env = machine(tmp_path, busy=0)
    Path(env["BIN"], "apt-get").write_text("#!/bin/sh\necho \"$*\" >> \"$LOG\"\necho 'E: Unable to locate package chromium' >&2\nexit 100\n")
    done, took = run(env)
    assert done.returncode == 100 and took < 10
    assert "E: Unable to locate package chromium" in done.stderr
    assert len(Path(env["LOG"]).read_text().splitlines()) == 1
