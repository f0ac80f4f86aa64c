"""Hand labels for the real set (written before any rule was tuned; see split.json).

A positive = (session, physical line, kind, gist, keywords): a statement a developer would
want told again. A memory matches it when it cites that line and its text contains every
keyword (case-insensitive), so two statements on one long line stay apart. Forbidden lines
are listed by hand (secrets) and found by shape in `forbidden.py` (injected command and skill
bodies, hook feedback, continuation summaries, subagent files, the assistant's own lines).
Run `python tests/eval/real/labels.py` to regenerate labels.json.
"""

from __future__ import annotations

import json
from pathlib import Path

B, K, P, F = "brain_explore/", "claude_transcript/", "production_patterns/", "fixtures/"
K1 = K + "2025-07-26_17-45-31Z-i-want-to-create-a_78c40bd8.jsonl"
K2 = K + "2025-08-10_14-42-56Z-i-would-like-to-move_bc761bdf.jsonl"
K3 = K + "2025-08-10_14-42-56Z-ive-got-the-code-for_70970a80.jsonl"
V, T = "ccexport/VIBE.jsonl", "cctrace/conversation_full.jsonl"
M = "mclaude/"

POSITIVES: list[tuple[str, int, str, str, tuple[str, ...]]] = [
    # --- sessions in the tuning half ---
    (B + "06ea6fa4-e075-452b-a4af-00dce71fbe5d-the-stop-hook-is-a-full.jsonl", 75, "fact",
     "the project documents its work in SiYuan too", ("siyuan",)),
    (B + "d67a1cb3-a6ec-4293-8fc9-b46d94b4e857-untitled-full.jsonl", 75, "fact",
     "the project documents its work in SiYuan too", ("siyuan",)),
    (B + "6fb6154e-042a-4d50-9b86-1db2acb5d266-lets-continue-woth-ohas.jsonl", 49, "preference",
     "use agents when useful", ("agents",)),
    (B + "76ef9d7a-2c8b-447e-ac60-a1ddb61a51c9-untitled-full.jsonl", 249, "preference",
     "handoff must update SiYuan when needed", ("handoff",)),
    (B + "ff079cb1-c5f0-4c7e-976a-6517f86a7bf9-untitled-full.jsonl", 91, "preference",
     "also use Serena; separate projects per domain", ("serena",)),
    (B + "b3e0e733-f5bf-4223-9f24-3fca42dd32bf-command-messagecatchup-.jsonl", 46, "decision",
     "the conversation experience must stay exactly the same", ("conversation",)),
    (K1, 1, "preference", "the tool is TypeScript run directly by node 24", ("node 24",)),
    (K1, 7, "preference", "prefer toolUseResult over the tool_result block", ("toolUseResult",)),
    (K1, 9, "preference", "when toolUseResult is a string, output the raw result", ("raw result",)),
    (K1, 10, "decision", "large contents are truncated into a contents/ folder", ("truncate",)),
    (K1, 13, "fact", "where the jsonl files live", ("jsonl files",)),
    (K1, 14, "preference", "never escape the raw files saved in contents/", ("escape",)),
    (K2, 1, "decision", "all formatting methods belong in OutputFormatter", ("formatting",)),
    (K2, 3, "fact", "no linting, no tsc: node 24 type stripping", ("type stripping",)),
    (K2, 3, "procedure", "verify a refactor by running src/index.ts and checking git status", ("src/index.ts",)),
    (K2, 8, "decision", "lint and format with biome 2, typecheck with tscgo", ("biome",)),
    (K2, 8, "preference", "formatting follows .prettierrc", (".prettierrc",)),
    (K2, 9, "preference", "use the assert helper from utils for possibly-undefined errors", ("assert",)),
    (K2, 16, "fact", ".claude-transcripts is a project asset", ("project asset",)),
    (K2, 16, "preference", "third-party argument parsing packages are fine", ("argument parsing",)),
    (K2, 17, "preference", "pnpm, never npm install", ("pnpm",)),
    (K2, 18, "preference", "index.ts reads the version from package.json", ("package.json",)),
    (K2, 24, "procedure", "bumping the version updates the CHANGELOG", ("changelog",)),
    (K2, 27, "preference", "paths outside cwd stay absolute; never `..`", ("path",)),
    (K2, 28, "procedure", "run pnpm start and commit .claude-transcripts before committing", ("pnpm start",)),
    (K2, 29, "preference", "test-output belongs in .gitignore", ("test-output",)),
    (K2, 34, "procedure", "run claude-transcripts before committing", ("before committing",)),
    (F + "cc-2.1.332-headless-continue-compact.jsonl", 5, "preference", "pnpm, never npm", ("pnpm",)),
    (F + "cc-2.1.332-headless-continue-compact.jsonl", 31, "fact", "tests run with vitest", ("vitest",)),
    (F + "codex-0.171.0-exec-resume-compact.jsonl", 9, "preference", "pnpm, never npm", ("pnpm",)),
    (F + "codex-0.171.0-exec-resume-compact.jsonl", 20, "fact", "tests run with vitest", ("vitest",)),
    (F + "codex-0.40.0-tool-calls.jsonl", 3, "decision", "full prisma type safety for select/where", ("prisma",)),
    (P + "claude-conversation-2025-11-19-05d2a517.jsonl", 8, "preference", "commit with --no-verify",
     ("no-verify",)),
    (P + "claude-conversation-2025-11-19-05d2a517.jsonl", 8, "preference", "only stage the files you changed",
     ("only stage",)),
    (P + "claude-conversation-2025-11-19-79b7388d.jsonl", 1, "preference", "be professional and concise",
     ("concise",)),
    (P + "claude-conversation-2025-11-19-79b7388d.jsonl", 1, "fact", "the audience is a hiring team",
     ("hiring team",)),
    (P + "claude-conversation-2025-11-19-af0e1e1c.jsonl", 6, "fact", "worktrees are plain subfolders, not wt/",
     ("worktrees",)),
    (P + "claude-conversation-2025-11-19-af0e1e1c.jsonl", 45, "decision",
     "the script needs not be portable; uv is a dependency", ("uv",)),
    (P + "claude-conversation-2025-11-19-af0e1e1c.jsonl", 61, "preference", "commit with --no-verify",
     ("no-verify",)),
    (P + "claude-conversation-2025-11-19-327c9ac0.jsonl", 1, "decision", "uv venv, Python 3.14, pytest, ruff, mypy",
     ("python 3.14",)),
    (V, 1, "preference", "Markdown export only, no JSON", ("json export",)),
    (V, 1, "preference", "always export the entire conversation", ("entire conversation",)),
    (V, 1, "preference", "tests are written with RSpec", ("rspec",)),
    (V, 1, "fact", "the tool runs in the working directory of the exported project", ("working directory",)),
    (V, 1, "preference", "credit the original exporter in the README", ("credit",)),
    (V, 6, "preference", "text responses: extract the text into the markdown", ("extract the text",)),
    (V, 12, "decision", "tool_use + tool_result become one collapsed Tool Use section", ("collapsed",)),
    (M + "b675c665-d678-4c00-9bca-43c772f3b260.jsonl", 53, "fact", "a YubiKey is used for root", ("yubikey",)),
    (M + "d435e688-a664-4dba-b2e7-786c1dde4a4c.jsonl", 45, "fact", "1Password CLI and its SSH agent are enabled",
     ("1password",)),
    # --- sessions in the test half ---
    (K3, 1, "preference", "code is written top-down, main first", ("top-down",)),
    (K3, 2, "preference", "types.ts matches the JSONL format; never rename its props", ("types",)),
    (K3, 3, "fact", "assert() replaces the non-null assertion syntax", ("assert",)),
    (K3, 4, "fact", "Node v24 type stripping does not support full TS syntax", ("type stripping",)),
    (K3, 5, "preference", "classes do not go ahead of main", ("ahead of main",)),
    (K3, 7, "preference", "commit messages use conventional commits", ("conventional",)),
    (K3, 8, "preference", "timestamps in UTC, shown to seconds", ("seconds",)),
    (K3, 13, "fact", "the GitHub username is kiliman", ("kiliman",)),
    (K3, 19, "fact", "personal scripts live in ~/dotfiles/scripts", ("dotfiles",)),
    (K3, 21, "fact", "the first entry is not always isMeta; use the first with cwd and timestamp", ("ismeta",)),
    (K3, 24, "decision", "commit .claude-transcripts; they are project specific", ("project specific",)),
    (K3, 24, "fact", "the repo is private now and will be made public", ("public",)),
    (P + "claude-conversation-2025-11-19-6ee5203f.jsonl", 18, "decision", "force `uv run` instead of python",
     ("uv run",)),
    (P + "claude-conversation-2025-11-19-6ee5203f.jsonl", 29, "preference", "pushing needs --no-verify",
     ("no-verify",)),
    (F + "cc-1.0.53-summaries-hook-system.jsonl", 4, "decision",
     "the TUI launches the cached session HTML instead of regenerating", ("tui",)),
    (F + "cc-1.0.53-summaries-hook-system.jsonl", 4, "decision", "no existence check; just launch it",
     ("existence",)),
    (B + "4a35fe98-2ee8-4ec3-a078-2a036a7ba19a-lets-work-on-the-intell.jsonl", 34, "decision",
     "keep the framework project as the reference", ("framework project",)),
    (B + "4a35fe98-2ee8-4ec3-a078-2a036a7ba19a-lets-work-on-the-intell.jsonl", 171, "preference",
     "keep docs updated throughout sessions, not only when told", ("claude.md",)),
    (B + "4a35fe98-2ee8-4ec3-a078-2a036a7ba19a-lets-work-on-the-intell.jsonl", 256, "preference",
     "keep docs updated throughout sessions, not only when told", ("claude.md",)),
    (B + "4a6ca08a-a0fa-47ba-a4d3-94f3e7093db1-caveat-the-messages-bel.jsonl", 188, "decision",
     "one SiYuan notebook for planning, another for the project", ("notebook",)),
    (B + "4a6ca08a-a0fa-47ba-a4d3-94f3e7093db1-caveat-the-messages-bel.jsonl", 420, "decision",
     "separate progress docs per project", ("progress docs",)),
    (B + "4a6ca08a-a0fa-47ba-a4d3-94f3e7093db1-caveat-the-messages-bel.jsonl", 155, "fact",
     "working MCP configs are in .mcp.json files", (".mcp.json",)),
    (B + "46c66e5d-35fd-48f3-8917-2a3d53e980a7-command-messagecatchup-.jsonl", 47, "preference",
     "needs to understand how things work", ("understand",)),
    (B + "46c66e5d-35fd-48f3-8917-2a3d53e980a7-command-messagecatchup-.jsonl", 62, "preference",
     "likes pushback and probing questions", ("pushback",)),
    (B + "58cc808c-1257-434d-946c-7d3423089517-command-messagecatchup-.jsonl", 387, "fact",
     "where SiYuan runs and where plugins go", ("siyuan runs",)),
    (B + "58cc808c-1257-434d-946c-7d3423089517-command-messagecatchup-.jsonl", 445, "fact",
     "where SiYuan runs and where plugins go", ("siyuan runs",)),
    (B + "58cc808c-1257-434d-946c-7d3423089517-command-messagecatchup-.jsonl", 1120, "preference",
     "show a version number in the plugin UI on every build", ("version number",)),
    (B + "58cc808c-1257-434d-946c-7d3423089517-command-messagecatchup-.jsonl", 202, "preference",
     "support mobile use", ("mobile",)),
    (B + "abe7033e-9ad5-4307-afc4-535f07f8a1e1-i-want-to-make-clean-fu.jsonl", 96, "decision",
     "one progress file per domain", ("progress-ies",)),
    (B + "abe7033e-9ad5-4307-afc4-535f07f8a1e1-i-want-to-make-clean-fu.jsonl", 162, "preference",
     "launch parallel tasks when possible", ("parallel",)),
    (B + "abe7033e-9ad5-4307-afc4-535f07f8a1e1-i-want-to-make-clean-fu.jsonl", 243, "preference",
     "launch parallel tasks when possible", ("parallel",)),
    (B + "b1bf397b-2cbb-46ed-bfcd-c21b81e5654b-untitled-full.jsonl", 37, "decision",
     "use happy instead of an ssh terminal for mobile", ("happy",)),
    (B + "ffc6b40f-fc79-4f82-a9d5-6052c23474f4-therapyframeworkresourc.jsonl", 921, "preference",
     "use a team of agents", ("agents",)),
    (T, 1, "fact", "Claude Code runs on WSL", ("wsl",)),
    (T, 52, "fact", "Claude Code runs on WSL", ("wsl",)),
    (T, 21, "preference", "an export run on command, not something running all the time", ("run on command",)),
    (T, 21, "decision", "a slash command / python script run manually", ("slash command",)),
    (T, 27, "fact", "several Claude Code sessions often run at once in the same folder", ("multiple",)),
    (M + "e5821007-9ca0-4a36-afc0-94da583da0ea.jsonl", 16, "decision",
     "Windows CLI logs become markdown and journals too", ("journals",)),
    # answers given through AskUserQuestion (a tool_result line: read once the readers keep the user's words there)
    (M + "ea6b9704-440b-478b-bcc7-3705480cec17.jsonl", 56, "decision",
     "Helium integration reuses the existing Claude Code native host", ("native host",)),
    (M + "ea6b9704-440b-478b-bcc7-3705480cec17.jsonl", 56, "decision",
     "the Helium integration matches the Chrome integration exactly", ("match chrome integration",)),
]

# Lines that must never become a memory, found by hand (the shapes are in forbidden.py).
FORBIDDEN: list[tuple[str, int, str]] = [
    (B + "cf29d9e6-6d7a-4ff2-a727-932d367366e8-untitled-full.jsonl", 177, "an access token typed into the prompt"),
    *((T, n, "an expanded slash-command body") for n in (82, 163, 196, 287)),
    (M + "b675c665-d678-4c00-9bca-43c772f3b260.jsonl", 101, "a background-task notification, not typed"),
]


def build() -> dict[str, object]:
    return {"positives": [{"session": s, "line": n, "kind": k, "gist": g, "keywords": list(kw)}
                          for s, n, k, g, kw in POSITIVES],
            "forbidden": [{"session": s, "line": n, "why": w} for s, n, w in FORBIDDEN if n > 0]}


if __name__ == "__main__":
    out = Path(__file__).with_name("labels.json")
    out.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
