"""The gemini distillation backend: a Gemini model through the user's own Gemini CLI login
(the `gemini` on PATH, or `distill.gemini_path`, run as `gemini -p` with JSON output).

How Gemini CLI is logged in is read from what it keeps, offline, without running it: an API
key in the environment (`GEMINI_API_KEY`, "gemini-api-key"; Vertex AI with
`GOOGLE_GENAI_USE_VERTEXAI` and `GOOGLE_API_KEY` or `GOOGLE_CLOUD_PROJECT`, "vertex-ai"), else
a Google login's cached credentials (`oauth_creds.json` in its folder, "oauth-personal": the
person's Google account, whose plan's quota these runs draw on). The auth type its
settings.json chose decides between them when it names one. Background work reads the
environment without the assistant's credentials (`environment.environ()`), so there only the
Google login counts.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..base import LoginBackend
from .default_model import GEMINI_DEFAULT

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

API_KEY = "gemini-api-key"
VERTEX = "vertex-ai"
GOOGLE = "oauth-personal"


def chosen_auth() -> str:
    """The auth type Gemini CLI's settings.json chose (`security.auth.selectedType`), or ""."""
    from . import folder

    try:
        settings = json.loads((folder.home() / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    auth = settings.get("security", {}).get("auth", {}) if isinstance(settings, dict) else {}
    chosen = auth.get("selectedType") if isinstance(auth, dict) else None
    return chosen if isinstance(chosen, str) else ""


def login(cli: str | None = None) -> str | None:
    """How Gemini CLI is logged in ("gemini-api-key", "vertex-ai", "oauth-personal"), or None."""
    from ... import environment
    from . import folder

    env = environment.environ()
    have = {API_KEY: bool(env.get("GEMINI_API_KEY", "").strip()),
            VERTEX: env.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("1", "true")
            and bool(env.get("GOOGLE_API_KEY", "").strip() or env.get("GOOGLE_CLOUD_PROJECT", "").strip()),
            GOOGLE: (folder.home() / folder.GOOGLE_LOGIN_FILES[0]).is_file()}
    chosen = chosen_auth()
    if chosen in have:
        return chosen if have[chosen] else None
    return next((how for how, there in have.items() if there), None)


def build(cfg: Any, cli: Path, workdir: Path) -> tuple[Any, Any]:
    from .distill import GeminiClient, GeminiDistiller, GeminiSettings

    client = GeminiClient(GeminiSettings.from_config(cfg, cli, workdir, login() or API_KEY))
    return GeminiDistiller(client), client


BACKEND = LoginBackend(name="gemini", command="gemini", path_setting="distill.gemini_path",
                       model_setting="distill.gemini_model", login=login, build=build,
                       default_model_status=GEMINI_DEFAULT, default_model_consent=GEMINI_DEFAULT,
                       needs_login="Gemini CLI is not logged in: run `gemini` and sign in (or set GEMINI_API_KEY), "
                                   "or pick another backend with --backend",
                       plan_logins=(GOOGLE,), plan_name="Google account's Gemini plan")
