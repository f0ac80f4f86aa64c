"""The words a front end offers as choices: memory kinds and statuses, the assistants whose
sessions are read, the distillation backends, a conflict's outcomes, discovery's window.

Plain constants with no imports, so the CLI builds its whole argument parser (and answers
`--help`) without loading the modules that act on them; each of those takes its names from
here (`models.KINDS`, `discover.TOOLS`, `backends.BACKENDS`, `api.KEEP` are these objects).
"""

KINDS: tuple[str, ...] = ("preference", "decision", "fact", "procedure", "episode")
STATUSES: tuple[str, ...] = ("active", "superseded", "forgotten", "held")  # held: waits for review

#: the assistants whose session folders discovery walks (the registry's names, in its order:
#: `tests/test_cli_entry.py` checks the two agree)
TOOLS = ("claude-code", "codex", "cursor", "gemini")
#: the assistants `loreline connect` installs capture for, with their labels
CONNECTABLE = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}
#: each assistant's folder option: (name, option, label, environment variable or "", whether the
#: folder sits inside the variable's one, the folder under ~)
HOMES = (("claude-code", "--claude-dir", "Claude Code", "CLAUDE_CONFIG_DIR", False, ".claude"),
         ("codex", "--codex-home", "Codex", "CODEX_HOME", False, ".codex"),
         ("cursor", "--cursor-dir", "Cursor", "", False, ".cursor"),
         ("gemini", "--gemini-dir", "Gemini CLI", "GEMINI_CLI_HOME", True, ".gemini"))
#: the assistants whose own memory files `loreline import native` reads
NATIVE = ("claude-code", "codex", "gemini")
#: every transcript format a file can be read as (`transcripts.READERS`)
FORMATS = (*TOOLS, "generic")
#: discovery's window: sessions modified in the last DEFAULT_DAYS, at most DEFAULT_SESSIONS of them
DEFAULT_DAYS = 14
DEFAULT_SESSIONS = 20

BACKENDS = ("auto", "anthropic", "claude-code", "codex", "gemini", "openai-compatible", "rules")

#: how a conflict is settled by keeping one side or both: the choice and the verdict it records
KEEP = {"new": "keep_new", "existing": "keep_existing", "both": "keep_both"}
