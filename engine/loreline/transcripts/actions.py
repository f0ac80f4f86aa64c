"""What the assistant did, as `action` turns a distiller reads beside the prose.

A tool call that ran something or changed a file becomes one turn (speaker `models.ACTION`) on
the line of the call, its `origin` saying which:

* `ran`: a shell command (Claude Code `Bash`, Codex `shell`, `shell_command`, `exec_command`,
  `local_shell_call`, Gemini CLI `run_shell_command`, Cursor `Shell`). Its text is the command
  line (a list joined as a shell line, `bash -lc "…"` unwrapped, a leading `cd <session folder>
  &&` dropped, another working folder put in front as `cd <folder> &&`, at most `MAX_COMMAND`
  characters, cut with `…`), then ` → ` and the outcome (`outcomes.outcome`: `ok`, `exit N:
  <first error line>`, a test runner's summary), or `no result` when the session ends before
  one. Cursor's transcripts record no results: its commands show none.
* `edited`: a file written or edited (Edit, MultiEdit, Write, NotebookEdit; Codex `apply_patch`,
  Gemini CLI `write_file` and `replace`; Cursor `StrReplace`, `Write`, `Delete`, `EditNotebook`).
  Its text is the path, relative to the session's folder when inside it (a patch's paths joined
  by `, `); its `files` are the paths, so a memory is tied to the files the edits touched. An
  edit its tool refused (an error result) changed nothing and is left out.
* `denied`: any tool call the person refused: `<tool>: <command or path>`. The person's reason,
  when given, stays the user turn (`origin="rejection"`) the reader already makes of it.

No action line, because each is something the assistant looked at or kept for itself, not
something it did to the project (the prose around it says what it learned): reads, searches and
listings (the Read, Grep, Glob and LS tools, and shell commands that only inspect: `cat`,
`sed -n`, `rg`, `ls`, `find`, `git status|log|diff|show`, … — `inspects_only`), todo lists and
plans (the assistant's own bookkeeping), web fetches and searches (material read, which is data,
not work done), and subagent launches (what a subagent does is its own transcript's; the launch
is a request the prose already restates). Such a call still becomes a `denied` line when the
person refuses it.

A tool's result arrives on a later line: the reader keeps the action on the call's line and
fills in its outcome when the result comes (`TurnBuilder.resolve`); the text is written when the
session has been read (`settle`), once its folder is known. Tool output never enters a turn
beyond the one line `outcomes.outcome` gives. Command text is redacted in one place,
`redact_command`, which the pipeline calls for every action turn.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from typing import Any

from ..models import ACTION, ACTION_LABELS, Turn
from ..records import record
from . import outcomes
from .paths import is_path, tool_input_paths

RAN, EDITED, DENIED = ACTION_LABELS["ran"], ACTION_LABELS["edited"], ACTION_LABELS["denied"]
LABELS = (RAN, EDITED, DENIED)
ARROW = " → "
MAX_COMMAND = 300
MAX_PATHS = 300
NEWLINE = " ↵ "
SHELL_TOOLS = frozenset({"Bash", "shell", "shell_command", "exec_command", "container.exec", "local_shell",
                         "run_shell_command", "Shell", "run_terminal_cmd"})
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "write_file", "replace",
                        "StrReplace", "Delete", "EditNotebook", "edit_file", "search_replace", "delete_file"})
#: the tools whose calls can be action lines whatever their result (any other only when refused)
ACTING_TOOLS = SHELL_TOOLS | EDIT_TOOLS
#: folders where an assistant keeps its own plans: writing there is bookkeeping, not an edit
OWN_FOLDERS = ("/.claude/plans/",)
#: refusing these is feedback on a plan or a question, which the reader keeps as the person's words
NO_DENIAL_LINE = frozenset({"ExitPlanMode", "exit_plan_mode", "AskUserQuestion", "ask_user_question"})
#: what a refused call names when it is neither a command nor a file
TARGET_KEYS = ("url", "pattern", "query", "description", "prompt", "subagent_type")
SHELLS = ("bash", "sh", "zsh", "dash")
#: programs that only look: a command made only of these (and their pipes) is a read
INSPECTORS = frozenset({
    "cat", "head", "tail", "less", "more", "bat", "nl", "wc", "ls", "ll", "la", "tree", "pwd", "cd", "echo",
    "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "file", "stat", "du", "df", "which",
    "whereis", "type", "sort", "uniq", "cut", "tr", "jq", "yq", "diff", "cmp", "realpath", "readlink", "dirname",
    "basename", "date", "whoami", "uname", "hostname", "true", "sed", "awk", "column", "xxd", "hexdump", "od",
    "strings", "tac", "rev", "fold", "comm", "paste", "md5sum", "sha256sum", "shasum",
})
GIT_INSPECTORS = frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame", "grep",
                            "describe", "shortlog", "reflog", "remote"})
#: options that turn an inspector into a writer
WRITING_OPTIONS = {
    "sed": ("-i", "--in-place"), "awk": ("-i", "inplace"), "find": ("-delete", "-exec", "-execdir", "-ok", "-fprint"),
    "sort": ("-o", "--output"), "fd": ("-x", "--exec", "-X", "--exec-batch"),
}
_GIT_WRITING = ("-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "--set-upstream-to", "add",
                "remove", "rm", "rename", "set-url", "prune", "set-head")
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
#: shell operators between commands (a parenthesis is left in its word: a subshell is then no inspector)
OPERATORS = ";<>|&"
_OPERATOR_CHARS = frozenset(OPERATORS)
#: shell words (quoted parts, escapes and plain characters glued together) and operators
_TOKEN = re.compile(r"""(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\&|;<>])+|[&|;<>]+""")
_SEGMENTS = re.compile(r"\|\||&&|[;|&]")
_REDIRECTS = re.compile(r"&>>?|\d*>>?&?\d*|<")
_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""")


@record
class Call:
    """One tool call worth remembering: `origin` `ran` or `edited`, or "" for a call shown only
    when the person refuses it."""

    origin: str
    tool: str
    command: str = ""
    paths: tuple[str, ...] = ()
    workdir: str | None = None
    target: str = ""


@record
class Result:
    """What a call's result says: its output (read for one line only), whether it failed, its
    exit code when the format records one, and whether the person refused the call."""

    output: str = ""
    failed: bool = False
    exit_code: int | None = None
    denied: bool = False


@record(frozen=False)
class Pending:
    """An action turn being built: its call, then its outcome once the result arrives."""

    call: Call
    outcome: str | None = None
    denied: bool = False
    refused: bool = False  # an edit its tool refused: nothing changed


# -- which calls are actions -----------------------------------------------------------


def call(name: Any, tool_input: Any, paths: Sequence[str] | None = None) -> Call | None:
    """The action a structured tool call is (Claude Code, Gemini CLI, Cursor, and Codex's
    named functions), or a quiet call shown only if refused; None for a nameless call.
    `paths`: the call's `paths.tool_input_paths`, when the caller has them already."""
    if not isinstance(name, str) or not name:
        return None
    args = tool_input if isinstance(tool_input, dict) else {}
    if name in SHELL_TOOLS:
        workdir = args.get("workdir") or args.get("directory") or args.get("cwd") or args.get("dir_path")
        return shell_call(name, args.get("command", args.get("cmd")), workdir if isinstance(workdir, str) else None)
    paths = tuple(tool_input_paths(name, args) if paths is None else paths)
    if name in EDIT_TOOLS:
        return edit_call(name, paths)
    if name in NO_DENIAL_LINE:
        return None
    target = next((str(args[key]) for key in TARGET_KEYS if isinstance(args.get(key), str) and args[key]), "")
    return Call("", name, paths=paths, target=target)


def shell_call(tool: str, command: Any, workdir: str | None = None) -> Call | None:
    """A shell command's action: `ran`, or quiet when it only inspects."""
    line = command_line(command)
    if not line:
        return None
    return Call("" if inspects_only(line) else "ran", tool, command=line, workdir=workdir)


def edit_call(tool: str, paths: Sequence[str]) -> Call | None:
    """An edit's action; quiet when it writes only the assistant's own plan files."""
    kept = tuple(p for p in paths if is_path(p))
    if not kept:
        return None
    own = all(any(folder in p.replace("\\", "/") for folder in OWN_FOLDERS) for p in kept)
    return Call("" if own else "edited", tool, paths=kept)


def command_line(command: Any) -> str:
    """A command as one shell line: a list joined (`bash -lc "<script>"` unwrapped to the script)."""
    if isinstance(command, list):
        if not all(isinstance(word, str) for word in command):
            return ""
        if len(command) == 3 and command[1] in ("-lc", "-c") and command[0].rsplit("/", 1)[-1] in SHELLS:
            return command[2].strip()
        return shlex.join(command)
    return command.strip() if isinstance(command, str) else ""


def inspects_only(line: str) -> bool:
    """Whether every command of a shell line only reads (`INSPECTORS`, read-only `git`), with no
    redirection into a file and no command substitution."""
    if not _may_inspect(line):
        return False  # most commands say at once that they are no look
    if "$(" in line or "`" in line or "\n" in line.strip() or line.count("'") % 2 or line.count('"') % 2:
        return False  # a substitution, a script or an unclosed quote: not a line to judge
    tokens = _TOKEN.findall(line)
    words: list[str] = []
    for index, token in enumerate(tokens + [";"]):
        if token[0] not in _OPERATOR_CHARS:
            words.append(_unquote(token))
            continue
        if ">" in token and not _harmless_redirect(token, tokens[index + 1] if index + 1 < len(tokens) else ""):
            return False
        if ">" in token or "<" in token:
            continue
        if words and not _inspects(words):
            return False
        words = []
    return True


def _unquote(word: str) -> str:
    if "'" not in word and '"' not in word and "\\" not in word:
        return word
    return "".join("".join(groups) for groups in _PIECE.findall(word))


def _may_inspect(line: str) -> bool:
    """False when a command of the line (split at its operators, exact for a line without quotes;
    else its first command alone) opens with a program that does not only look."""
    segments = _SEGMENTS.split(_REDIRECTS.sub(" ", line)) if "'" not in line and '"' not in line else [line]
    for segment in segments:
        words = segment.split(None, 1)
        head = words[0].rsplit("/", 1)[-1] if words else ""
        if head and head not in INSPECTORS and head != "git" and not _ASSIGNMENT.match(head):
            return False
    return True


def _harmless_redirect(operator: str, target: str) -> bool:
    return operator.endswith("&") or target.startswith("&") or target.isdigit() or target == "/dev/null"


def _inspects(words: list[str]) -> bool:
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return True
    program, rest = words[0].rsplit("/", 1)[-1], words[1:]
    if program == "git":
        sub = next((w for w in rest if not w.startswith("-")), "")
        return sub in GIT_INSPECTORS and not any(w in _GIT_WRITING for w in rest) and \
            not (sub == "branch" and any(not w.startswith("-") for w in rest[rest.index(sub) + 1:]))
    if program not in INSPECTORS:
        return False
    writing = WRITING_OPTIONS.get(program, ())
    return not any(w == opt or w.startswith(opt + "=") or (opt == "-i" and w.startswith("-i")) for w in rest
                   for opt in writing)


# -- results -------------------------------------------------------------------------


def resolve(pending: Pending, result: Result) -> None:
    """Fill in a pending action from its result (the first result wins)."""
    if pending.outcome is not None or pending.denied or pending.refused:
        return
    if result.denied:
        pending.denied = True
    elif pending.call.origin == "edited":
        pending.refused = result.failed
        pending.outcome = outcomes.OK
    elif pending.call.origin == "ran":
        pending.outcome = outcomes.outcome(pending.call.command, result.output, failed=result.failed,
                                           exit_code=result.exit_code)
    else:
        pending.outcome = outcomes.OK


# -- the turns --------------------------------------------------------------------------


def settle(turns: list[Turn], pending: dict[int, Pending], cwd: str | None, *, results: bool = True) -> list[Turn]:
    """`turns` with each action placeholder (by index in `pending`) given its text, and the
    actions that are not to be shown (quiet calls, refused edits) left out. `results=False`: the
    format records no tool results (Cursor), so commands show no outcome."""
    out: list[Turn] = []
    for index, turn in enumerate(turns):
        state = pending.get(index)
        if state is None:
            out.append(turn)
            continue
        written = _text(state, cwd, results)
        if written is not None:
            origin, text = written
            files = state.call.paths if origin == "edited" else ()
            out.append(Turn(ACTION, text, turn.line_start, turn.line_end, turn.timestamp, files, origin))
    return out


def _text(state: Pending, cwd: str | None, results: bool) -> tuple[str, str] | None:
    found = state.call
    if state.denied:
        target = _shown_command(found, cwd) if found.command else _shown_paths(found.paths, cwd) or found.target
        target = outcomes.cut(target, MAX_COMMAND)
        return "denied", f"{found.tool}: {target}" if target else found.tool
    if found.origin == "edited":
        return None if state.refused else ("edited", _shown_paths(found.paths, cwd))
    if found.origin != "ran":
        return None
    command = _shown_command(found, cwd)
    if not results:
        return "ran", command
    return "ran", f"{command}{ARROW}{state.outcome or outcomes.NO_RESULT}"


def _shown_command(found: Call, cwd: str | None) -> str:
    line = found.command
    if cwd and line.startswith("cd "):
        for joiner in (" && ", "; ", " ; "):
            for folder in {cwd, cwd.rstrip("/"), shlex.quote(cwd)}:
                prefix = f"cd {folder}{joiner}"
                if line.startswith(prefix):
                    line = line[len(prefix):]
    workdir = found.workdir
    if workdir and workdir not in (".", "./") and (not cwd or os.path.normpath(workdir) != os.path.normpath(cwd)):
        line = f"cd {shlex.quote(relative(workdir, cwd))} && {line}"
    if "\n" not in line:
        return outcomes.cut(line, MAX_COMMAND)
    # a script keeps its lines until it is redacted (the command rules read line by line)
    cropped = line[: MAX_COMMAND * 2]
    lines = [" ".join(part.split()) for part in cropped.splitlines()]
    kept = "\n".join(part for part in lines if part)
    if len(kept) <= MAX_COMMAND and len(cropped) == len(line):
        return kept
    # cut between words (see `outcomes.cut`): no part of a secret outlives the cut
    head = kept[: MAX_COMMAND]
    split = kept[MAX_COMMAND].isspace() is False if len(kept) > MAX_COMMAND else not cropped[-1].isspace()
    if split:
        at = max(head.rfind(" "), head.rfind("\n"))
        head = head[:at] if at > 0 else ""
    return head.rstrip() + "…"


def _shown_paths(paths: Sequence[str], cwd: str | None) -> str:
    return outcomes.cut(", ".join(dict.fromkeys(relative(p, cwd) for p in paths)), MAX_PATHS)


def relative(path: str, cwd: str | None) -> str:
    """`path` relative to `cwd` when it lies inside it, else as given."""
    if not cwd or not path.startswith(cwd):
        return path
    inside = path[len(cwd.rstrip("/\\")):]
    if inside[:1] not in ("/", "\\") or not inside[1:]:
        return path
    parts = inside[1:].replace("\\", "/").split("/")
    return path if ".." in parts else inside[1:]


def redact_command(text: str) -> str:
    """The one place an action's text (a command line, a path, an error line) is redacted, after
    the sanitizer: `privacy.commands.redact_command`, the prose redactor and the secret forms
    command lines have (`PGPASSWORD=…`, `-H "Authorization: …"`, `curl -u user:pass`, `mysql -p…`,
    `--password …`, …), every line read as a command. A script's lines, kept apart until here,
    are then written on one line (`NEWLINE` between them)."""
    from ..privacy.commands import redact_command as redact_line

    return redact_line(text).replace("\n", NEWLINE)


# -- what the distiller reads first when an excerpt's actions are too many ----------------


def priority(turn: Turn) -> int:
    """Which actions an over-long account keeps first (lower first): refused calls, failed
    commands, test runs, edits, then the commands that went well."""
    if turn.origin == "denied":
        return 0
    if turn.origin == "edited":
        return 3
    command, _, result = turn.text.rpartition(ARROW)
    result = result.split(" (×", 1)[0]
    if result.startswith(("exit ", "failed")) or re.search(r"\b[1-9]\d* (?:failed|errors?)\b", result):
        return 1
    if outcomes.is_test(command or turn.text):
        return 2
    return 4


def is_action(turn: Turn) -> bool:
    return turn.speaker == ACTION


def label(turn: Turn) -> str:
    """`RAN`, `EDITED` or `DENIED`."""
    return ACTION_LABELS.get(turn.origin, turn.origin.upper())
