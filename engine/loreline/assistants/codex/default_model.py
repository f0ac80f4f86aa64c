"""The name shown for the model Codex picks itself when `distill.codex_model` is empty (its
login backend and its distiller both say it)."""

CODEX_DEFAULT = "codex-default"
