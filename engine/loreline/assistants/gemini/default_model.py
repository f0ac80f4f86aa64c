"""The model the gemini backend asks Gemini CLI for when `distill.gemini_model` is empty (its
login backend and its distiller both say it): the fast one, which draws least on the quota."""

GEMINI_DEFAULT = "gemini-2.5-flash"
