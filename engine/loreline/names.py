"""The words a front end offers as choices: memory kinds and statuses, the assistants whose
sessions are read, the distillation backends, a conflict's outcomes, discovery's window.

Plain constants with no imports, so the CLI builds its whole argument parser (and answers
`--help`) without loading the modules that act on them; each of those takes its names from
here (`models.KINDS`, `discover.TOOLS`, `backends.BACKENDS`, `api.KEEP` are these objects).
"""

KINDS: tuple[str, ...] = ("preference", "decision", "fact", "procedure", "episode")
STATUSES: tuple[str, ...] = ("active", "superseded", "forgotten", "held")  # held: waits for review

#: the assistants whose session folders discovery walks
TOOLS = ("claude-code", "codex", "cursor")
#: every transcript format a file can be read as (`transcripts.READERS`)
FORMATS = (*TOOLS, "generic")
#: discovery's window: sessions modified in the last DEFAULT_DAYS, at most DEFAULT_SESSIONS of them
DEFAULT_DAYS = 14
DEFAULT_SESSIONS = 20

BACKENDS = ("auto", "anthropic", "claude-code", "rules")

#: how a conflict is settled by keeping one side or both: the choice and the verdict it records
KEEP = {"new": "keep_new", "existing": "keep_existing", "both": "keep_both"}
