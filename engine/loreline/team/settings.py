"""Team settings (`[team]` in the config file) and the server's password.

The config holds the DSN *without* a password, the author name shown to teammates, an
optional remote override and the sharing policy. The password lives in the OS keyring
(service "loreline", user "team:<dsn>"), or in libpq's own places (PGPASSWORD, ~/.pgpass);
never in a Loreline file.
"""

from __future__ import annotations


from .. import config, keys
from ..errors import KeyringUnavailableError
from ..records import record

SHARE_POLICIES = config.TEAM_SHARE_POLICIES

@record
class TeamSettings:
    dsn: str
    author: str
    remote: str
    share: str
    sync_seconds: float

    @property
    def enabled(self) -> bool:
        return bool(self.dsn.strip())


def load() -> TeamSettings:
    cfg = config.load()
    return TeamSettings(
        dsn=cfg.get_str("team.dsn"), author=cfg.get_str("team.author").strip() or _login(),
        remote=cfg.get_str("team.remote"), share=cfg.get_str("team.share"),
        sync_seconds=cfg.get_float("team.sync_seconds"),
    )


def _login() -> str:
    try:
        import getpass

        return getpass.getuser()
    except Exception:  # no login name (a container without a passwd entry)
        return "someone"


def keyring_user(dsn: str) -> str:
    return "team:" + dsn.strip()


def secret(dsn: str) -> keys.Secret:
    """The team server's password as the keyring holds it (and where else libpq looks)."""
    return keys.Secret(keyring_user(dsn), "the team server's password",
                       "set PGPASSWORD or add the password to ~/.pgpass instead (libpq reads both)")


def password(dsn: str) -> str | None:
    """The password kept for this DSN in the OS keyring; None when there is none or no keyring."""
    try:
        return keys.stored_secret(secret(dsn))
    except KeyringUnavailableError:
        return None
