"""One exception hierarchy for the engine.

    LorelineError                      every error the engine raises on purpose
    ├── ConfigError                    a bad config file, key or value
    ├── StoreError                     the SQLite store
    │   ├── StoreBusyError             another process held the write lock too long
    │   └── StoreCorruptError          the file is not a usable Loreline database
    ├── TranscriptError                a session file
    │   ├── TranscriptMissingError     the path does not exist or is not a file
    │   └── UnknownFormatError         no parser recognises the file
    ├── DistillError                   a distillation backend
    │   ├── AuthError                  the API key was rejected (401/403)
    │   ├── RateLimitedError           429/529 or connection trouble after the retries
    │   │   └── UsageLimitError        a login or API said its usage limit or rate limit is reached
    │   ├── CapReachedError            the daily cap on unattended calls or tokens is spent
    │   └── ModelOutputError           the model answered outside the contract
    ├── KeyringUnavailableError        no OS keyring backend is usable
    ├── TeamError                      the team store (PostgreSQL): settings, schema
    │   └── TeamUnreachableError       the server is down or refused the connection
    └── NotFoundError                  an id the user named does not exist

Each edge turns these into output exactly once: the CLI prints one line and exits
non-zero, the language server answers with an error response, a hook exits 0.
"""

from __future__ import annotations


class LorelineError(Exception):
    """Base class: `str(err)` is a single line fit to show a person."""

    exit_code = 1


class ConfigError(LorelineError):
    exit_code = 2


class StoreError(LorelineError):
    pass


class StoreBusyError(StoreError):
    pass


class StoreCorruptError(StoreError):
    pass


class TranscriptError(LorelineError):
    pass


class TranscriptMissingError(TranscriptError):
    pass


class UnknownFormatError(TranscriptError):
    pass


class DistillError(LorelineError):
    pass


class AuthError(DistillError):
    pass


class RateLimitedError(DistillError):
    pass


class UsageLimitError(RateLimitedError):
    """A login or API said its usage limit or a rate limit is reached (`limit`: a `models.Limit`,
    with when it lifts when it said), or a cooldown it started still holds: deferred, not failed."""

    def __init__(self, message: str, limit: object) -> None:
        super().__init__(message)
        self.limit = limit


class CapReachedError(DistillError):
    """Deferred, not failed: the work waits for tomorrow's allowance or a higher cap."""


class ModelOutputError(DistillError):
    pass


class KeyringUnavailableError(LorelineError):
    pass


class TeamError(LorelineError):
    pass


class TeamUnreachableError(TeamError):
    """Not a failure of the local store: sync waits and catches up later."""


class NotFoundError(LorelineError):
    exit_code = 3
