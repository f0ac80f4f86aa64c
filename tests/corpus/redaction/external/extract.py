"""Rebuild `samples.jsonl` from the public test data of secret scanners (see SOURCES.md).

    .venv/bin/python tests/corpus/redaction/external/extract.py GITLEAKS_GIT DETECT_SECRETS_GIT TRUFFLEHOG_GIT

Each argument is a git directory (a bare mirror is fine). Only the labelled samples are read:
string literals listed as true/false positives in gitleaks rule definitions, the parametrized
(line, expected) cases of detect-secrets' plugin tests, and the `input`/`want` pairs of
trufflehog's detector pattern tests. No scanner code is copied. Every sample gets a split
(`tune` or `test`) from a fixed seed, decided here, before any tuning.

Row: {"source", "path", "label": "pos"|"neg", "text", "secret": str|null, "split"}; `secret`
is the substring that must be gone (null: the case only says "this holds a secret").
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = "loreline-external-2026"  # the split: sha256(seed + text) parity, fixed before tuning
_GO_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`([^`]*)`')


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def go_string(match: re.Match[str]) -> str:
    if match.group(2) is not None:
        return match.group(2)
    body = match.group(1)
    try:
        return str(json.loads('"' + body + '"'))
    except ValueError:
        try:
            return str(ast.literal_eval('"' + body + '"'))
        except (ValueError, SyntaxError):
            return body


def _block(source: str, start: int) -> str:
    """The text between the `{` or `(` at/after `start` and its partner, strings skipped."""
    opener = min((i for i in (source.find("{", start), source.find("(", start)) if i != -1), default=-1)
    if opener == -1:
        return ""
    depth, i = 0, opener
    while i < len(source):
        ch = source[i]
        if ch in "\"`":
            m = _GO_STRING.match(source, i)
            i = m.end() if m else i + 1
            continue
        if ch == "/" and source.startswith("//", i):
            i = source.find("\n", i)
            i = len(source) if i == -1 else i
            continue
        depth += ch in "{("
        depth -= ch in "})"
        i += 1
        if depth == 0:
            return source[opener + 1:i - 1]
    return ""


def _top_level_literals(block: str) -> list[str]:
    """String literals that are whole elements of a Go list (not arguments, not concatenated)."""
    out, depth, i = [], 0, 0
    while i < len(block):
        ch = block[i]
        if ch in "\"`":
            m = _GO_STRING.match(block, i)
            if m is None:
                i += 1
                continue
            before = block[:i].rstrip()
            after = block[m.end():].lstrip()
            if depth == 0 and not before.endswith("+") and not after.startswith("+"):
                out.append(go_string(m))
            i = m.end()
            continue
        if ch == "/" and block.startswith("//", i):
            j = block.find("\n", i)
            i = len(block) if j == -1 else j
            continue
        depth += ch in "{("
        depth -= ch in "})"
        i += 1
    return out


def gitleaks(repo: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in git(repo, "ls-tree", "--name-only", "HEAD", "cmd/generate/config/rules/").split():
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        source = git(repo, "show", f"HEAD:{path}")
        for m in re.finditer(r"\b(tps|fps)\s*(?::=|=)\s*(?:\[\]string\s*\{|append\()", source):
            label = "pos" if m.group(1) == "tps" else "neg"
            for text in _top_level_literals(_block(source, m.end() - 1)):
                if label == "neg" or len(text) >= 8:
                    rows.append({"source": "gitleaks", "path": path, "label": label, "text": text, "secret": None})
        for m in re.finditer(r'GenerateSampleSecrets\(\s*"([^"]*)"\s*,\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*\)', source):
            secret = go_string(_GO_STRING.match(m.group(2)))  # type: ignore[arg-type]
            ident = m.group(1)
            for shape in ("{i}_token: {s}", '{i}Token := "{s}"', "{I}_TOKEN={s}"):
                text = shape.format(i=ident, I=ident.upper(), s=secret)
                rows.append({"source": "gitleaks", "path": path, "label": "pos", "text": text, "secret": secret})
    return rows


def detect_secrets(repo: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "tests/plugins/").split():
        if not path.endswith("_test.py"):
            continue
        tree = ast.parse(git(repo, "show", f"HEAD:{path}"))
        scope: dict[str, Any] = {"base64": base64, "randint": lambda a, b: a}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _evaluate(node.value, scope)
                if value is not None:
                    scope[node.targets[0].id] = value
                    rows += _cases(value, path)
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize" and len(node.args) >= 2:
                rows += _cases(_evaluate(node.args[1], scope), path)
    return rows


def _evaluate(node: ast.AST, scope: dict[str, Any]) -> Any:
    try:
        return eval(compile(ast.Expression(node), "<case>", "eval"), {"__builtins__": {"str": str}}, dict(scope))  # noqa: S307
    except Exception:  # a case that needs the scanner's own code: skipped
        return None


def _cases(value: Any, path: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not isinstance(value, list):
        return rows
    for case in value:
        if not (isinstance(case, tuple) and len(case) >= 2 and isinstance(case[0], str)):
            continue
        text, expected = case[0], case[1]
        if len(text) > 4000 or not text.strip():
            continue
        if isinstance(expected, bool):
            rows.append({"source": "detect-secrets", "path": path, "label": "pos" if expected else "neg",
                         "text": text, "secret": None})
        elif expected is None:
            rows.append({"source": "detect-secrets", "path": path, "label": "neg", "text": text, "secret": None})
        elif isinstance(expected, str) and expected in text:
            rows.append({"source": "detect-secrets", "path": path, "label": "pos", "text": text, "secret": expected})
    return rows


_TH_CASE = re.compile(r'input:\s*("(?:[^"\\\n]|\\.)*"|`[^`]*`)\s*,\s*want:\s*(nil|\[\]string\{)')


def trufflehog(repo: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    paths = [p for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "pkg/detectors/").split()
             if p.endswith("_test.go") and "integration" not in p]
    for path in paths:
        source = git(repo, "show", f"HEAD:{path}")
        for m in _TH_CASE.finditer(source):
            text = go_string(_GO_STRING.match(m.group(1)))  # type: ignore[arg-type]
            if m.group(2) == "nil" or not text.strip() or len(text) > 4000:
                continue
            wants = [go_string(w) for w in _GO_STRING.finditer(_block(source, m.end(2) - 1))]
            secret = _longest_part(text, wants)
            if secret:
                rows.append({"source": "trufflehog", "path": path, "label": "pos", "text": text, "secret": secret})
    return rows


def _longest_part(text: str, wants: list[str]) -> str | None:
    """The longest token of `text` (8+ characters) that is part of a wanted secret."""
    best = None
    for token in re.findall(r"[^\s\"'`,;=:<>(){}\[\]]{8,}", text):
        if any(token in want for want in wants) and (best is None or len(token) > len(best)):
            best = token
    return best


def split(text: str) -> str:
    return "test" if hashlib.sha256((SEED + text).encode()).digest()[0] % 2 else "tune"


def main(argv: list[str]) -> int:
    rows = gitleaks(argv[0]) + detect_secrets(argv[1]) + trufflehog(argv[2])
    seen: set[tuple[str, str]] = set()
    with open(HERE / "samples.jsonl", "w", encoding="utf-8") as out:
        for row in rows:
            key = (row["label"], row["text"])
            if key in seen:
                continue
            seen.add(key)
            row["split"] = split(row["text"])
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(seen)} samples", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
