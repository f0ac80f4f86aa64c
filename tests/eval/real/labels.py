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
BM, UF = "bookminder/", "unrealfrog/"
UF_SETUP = UF + "2026-02-13T02-07-00-setup-the-agent-team-described-in.jsonl"
UF_FEEDBACK = UF + "2026-02-13T04-31-00-i-have-feedback-for-the-team.jsonl"
UF_ADVICE = UF + "2026-02-13T04-45-00-one-more-piece-of-advice-when.jsonl"
UF_PLAN = UF + "2026-02-15T17-48-00-have-the-agent-team-plan-the.jsonl"
UF_UTILIZE = UF + "2026-02-16T03-45-00-properly-utilize-all-applicable-agents-o.jsonl"
UF_CLEANUP = UF + "2026-02-16T06-07-00-we-need-to-cleanup-our-transcripts.jsonl"
UF_VISUAL = UF + "2026-02-18-0405-implement-the-following-plan-plan-visual.jsonl"

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
    # second batch (labelled blind, after the split was committed) - tuning half
    (BM + "day-003.jsonl", 7, "fact", "the environment must be activated to work in the project", ("activate",)),
    (BM + "day-003.jsonl", 23, "preference", "teach the current pythonic way; push back when steered wrong",
     ("push back",)),
    (BM + "day-003.jsonl", 25, "decision", "keep reference notes like this in a doc folder", ("doc folder",)),
    (BM + "day-003.jsonl", 29, "preference", "no verbose inline documentation in config files", ("inline documentation",)),
    (BM + "day-003.jsonl", 29, "decision", "no backwards compatibility to maintain; fully modernize", ("backwards",)),
    (BM + "day-003.jsonl", 33, "fact", "the project will be published on GitHub", ("publish",)),
    (BM + "day-003.jsonl", 35, "fact", "the author is Pavol Vaskovic", ("pavol vaskovic",)),
    (BM + "day-003.jsonl", 37, "procedure", "check the model version now and then and update the contributors list",
     ("contributors",)),
    (BM + "day-003.jsonl", 45, "fact", "the day logs in claude-dev-log-diary are maintained and committed by hand",
     ("claude-dev-log-diary",)),
    (BM + "day-003.jsonl", 49, "decision", "drop the git-autofixer from the pre-commit docs (YAGNI)", ("git-autofixer",)),
    (BM + "day-005.jsonl", 1, "fact", "the dev-log diary is committed by hand from Tower", ("tower",)),
    (BM + "day-005.jsonl", 3, "preference", "explain the options before implementing one", ("explain",)),
    (BM + "day-005.jsonl", 29, "preference", "no comments inside bash snippets; explain in the text above",
     ("bash snippets",)),
    (BM + "day-005.jsonl", 45, "preference", "fix the project setup rather than commit with --no-verify",
     ("no-verify",)),
    (BM + "day-005.jsonl", 51, "decision", "ruff runs on the specs; the specs are excluded from mypy", ("mypy",)),
    (BM + "day-005.jsonl", 57, "decision", "runs against real Apple Books are integration tests; mocks for unit tests",
     ("integration",)),
    (BM + "day-005.jsonl", 60, "preference", "build a walking skeleton first; no running ahead with own ideas",
     ("walking skeleton",)),
    (BM + "day-005.jsonl", 82, "fact", "`git add .` does not work here: uncommitted diary changes lie around",
     ("git add",)),
    (UF_SETUP, 12, "decision", "symlink the Claude Code conversation history into the repository", ("symlink",)),
    (UF_SETUP, 16, "preference", "keep only this project's conversations", ("this project",)),
    (UF_SETUP, 21, "fact", "the project is an open source repository of Randroid's Dojo", ("open source",)),
    (UF_SETUP, 32, "decision", "only readable transcripts are checked in, made by a skill on stop", ("transcript",)),
    (UF_FEEDBACK, 1, "preference", "always leave the project in a working state", ("working state",)),
    (UF_FEEDBACK, 1, "procedure", "always verify the build before any commit", ("verify build",)),
    (UF_FEEDBACK, 1, "decision", "build test harnesses like PlayGodot for Unreal so agents can play the game",
     ("playgodot",)),
    (UF + "2026-02-15T01-40-00-plan-the-next-sprint.jsonl", 108, "preference",
     "everyone gives their opinion in the retrospective", ("opinion",)),
    (UF + "2026-02-15T04-06-00-continue-the-inprogress-sprint-use-agent.jsonl", 61, "preference",
     "all agents take part in retro and planning and bring differing opinions", ("differing opinions",)),
    (UF + "2026-02-17-0429-this-sprint-has-been-a-disaster.jsonl", 5, "preference",
     "real actions, real improvements, real verification; no ghost hunts", ("real verification",)),
    (UF_VISUAL, 13, "preference", "always link the screenshots used in a comparison", ("screenshots",)),
    (UF_VISUAL, 18, "preference", "never trust commit messages blindly; prove visual changes", ("commit messages",)),
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
    # second batch (labelled blind, after the split was committed) - test half
    (BM + "day-017.jsonl", 5, "preference", "never read claude-dev-log-diary without explicit permission",
     ("permission",)),
    (BM + "day-017.jsonl", 15, "decision", "the `--flag` option becomes `--filter`", ("--filter",)),
    (BM + "day-017.jsonl", 30, "preference", "professional style in docs: no emojis, no numbered lists", ("emojis",)),
    (BM + "day-017.jsonl", 34, "procedure", "Gherkin story in the acceptance-test docstring until the code restates it",
     ("gherkin",)),
    (BM + "day-017.jsonl", 34, "preference", "no redundant comments", ("redundant comments",)),
    (BM + "day-017.jsonl", 38, "procedure", "manage the backlog in TODO.md in harmony with the stories", ("backlog",)),
    (BM + "day-017.jsonl", 40, "decision", "a PreToolUse hook blocks `git add .` and `git add -A`", ("pretooluse",)),
    (BM + "day-017.jsonl", 51, "preference", "acceptance tests are named describe_<command> / it_<behaviour>",
     ("describe_bookminder_list_with_filter",)),
    (UF + "2026-02-13T03-58-00-lets-kickoff-the-project-get-the.jsonl", 1, "procedure",
     "a sprint: working agreement, IPM, iterative tasks to definition of done, retro", ("ipm",)),
    (UF_ADVICE, 1, "preference", "when delivering work, describe what is playable", ("playable",)),
    (UF_ADVICE, 40, "decision", "CLI/agent-driven map creation for now; a spike for an editor tool",
     ("cli/agent-driven",)),
    (UF + "2026-02-15T16-22-00-restart-the-sprint.jsonl", 250, "decision",
     "build PlayUnreal: a PlayWright-like tool to test the game live with Python scripts", ("playunreal",)),
    (UF_PLAN, 116, "decision", "fixing PlayUnreal is the priority", ("playunreal",)),
    (UF_PLAN, 287, "preference", "do this level of detailed PlayUnreal testing from now on", ("detailed testing",)),
    (UF_PLAN, 293, "preference", "CLAUDE.md references every helpful document", ("claude.md",)),
    (UF + "2026-02-16T03-20-00-have-the-agents-do-a-retrospective.jsonl", 1, "fact",
     "WebFrogger, a web Frogger made with one prompt, is the bar; the goal is the tools", ("webfrogger",)),
    (UF_UTILIZE, 203, "procedure", "another agent checks the work, PlayUnreal scripts run, a regression script per fix",
     ("regression script",)),
    (UF_UTILIZE, 209, "preference", "agents note retro topics as they come up during the sprint", ("notes",)),
    (UF_UTILIZE, 420, "fact", "the camera is rotated: what looks like the y axis is the x axis", ("camera is rotated",)),
    (UF_UTILIZE, 454, "fact", "the game is flipped: top and bottom are the x axis", ("x-axis",)),
    (UF_UTILIZE, 471, "decision", "do not change PlatformLandingMargin", ("platformlandingmargin",)),
    (UF_UTILIZE, 507, "preference", "keep the process: plan, code, verify; retros, tests, tooling, agreements",
     ("plan, code, verify",)),
    (UF_CLEANUP, 1, "preference", "transcript file names include timestamps", ("timestamps",)),
    (UF_CLEANUP, 33, "decision", "transcripts of 4 or fewer messages are not kept", ("4 or less",)),
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
