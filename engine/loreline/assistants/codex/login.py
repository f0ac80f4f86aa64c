"""The codex distillation backend: an OpenAI model through the user's own Codex login (the
`codex` on PATH, or `distill.codex_path`, run as `codex exec` with an output schema)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base import LoginBackend


def login(cli: str) -> str | None:
    from .distill import login

    return login(cli)


def build(cfg: Any, cli: Path, workdir: Path) -> tuple[Any, Any]:
    from .distill import CodexClient, CodexDistiller, CodexSettings

    client = CodexClient(CodexSettings.from_config(cfg, cli, workdir))
    return CodexDistiller(client), client


def _backend() -> LoginBackend:
    from .distill import CODEX_DEFAULT

    return LoginBackend(name="codex", command="codex", path_setting="distill.codex_path",
                        model_setting="distill.codex_model", login=login, build=build,
                        default_model_status=CODEX_DEFAULT, default_model_consent="Codex's default model",
                        needs_login="Codex is not logged in: run `codex login`, or pick another backend with --backend")


BACKEND = _backend()
