"""The one error family, and the exit codes the CLI boundary maps it to.

| code | meaning |
| 0 | ok |
| 1 | expected failure (a CogitError): the message says what to do next |
| 2 | usage error (bad command, option or argument) |
| 3 | internal error: a bug; a crash log is written under runtime/logs |
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2
    INTERNAL = 3


class CogitError(Exception):
    """An expected failure: `message` says what went wrong, `hint` what to do next."""

    code = "error"
    exit_code = ExitCode.FAILURE

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"


class DiskError(CogitError):
    """The disk refused a write: full, over quota, read-only, or not writable for this user."""

    code = "disk"


class DamagedRepository(CogitError):
    """The memory repository is damaged in a way `cogit doctor --fix` repairs (a pack
    without its index, a branch or HEAD at a missing commit)."""

    code = "damaged"


class NotInitialized(CogitError):
    code = "not_initialized"


class InvalidState(CogitError):
    """A state document failed validation (file, line and field are in the message)."""

    code = "invalid_state"


class ItemNotFound(CogitError):
    code = "not_found"


class RevisionNotFound(CogitError):
    code = "bad_revision"


class Conflict(CogitError):
    code = "conflict"


class Locked(CogitError):
    code = "locked"


class UsageError(CogitError):
    code = "usage"
    exit_code = ExitCode.USAGE


class RemoteError(CogitError):
    code = "remote"


class InstallError(CogitError):
    code = "install"


class PushRejected(RemoteError):
    """The remote refused a push. `rejected` maps each refused branch to the reason.

    `non_fast_forward` is True when the remote branch moved on since the last fetch (or
    the push would drop its commits): fetch, merge and push again. False means a server
    policy (a hook, permissions) refused it, and retrying will not help.
    """

    code = "push_rejected"

    def __init__(
        self,
        message: str,
        hint: str | None = None,
        *,
        non_fast_forward: bool = False,
        rejected: dict[str, str] | None = None,
    ):
        super().__init__(message, hint)
        self.non_fast_forward = non_fast_forward
        self.rejected = dict(rejected or {})
