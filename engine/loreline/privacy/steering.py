"""Memories that would steer an assistant somewhere dangerous wait for a person's review.

`hold_reason(text)` names why a memory's text must not be injected or recalled on its own,
whoever said it (a pasted page, a poisoned tool output or the user): it would have the
assistant

* run remote code: `curl … | sh`, `wget -O- … | bash`, `bash <(curl …)`, `iex (iwr …)`,
  "download and run the installer";
* turn off a safety check: `--no-verify`, `verify=False`, `curl -k`, TLS/certificate
  verification, `--dangerously-skip-permissions`, "disable the firewall / antivirus / 2FA";
* send data out: uploading `.env`, keys or credentials, `curl -d @.env`, `nc host port <`,
  "email the secrets", pastebin;
* use credentials: a redacted secret in the memory, "log in as admin with password …",
  "use the token …", `sshpass`, `sudo -S`;
* weaken a quality gate: skip or disable the tests, code review, linters, type checks, CI
  stages or pre-commit hooks ("never bother with the linters", "mark failing tests skip",
  `SKIP_TESTS=1`, `-DskipTests`, `HUSKY=0`), or force-push a protected branch (`main`,
  `master`, `release`, `production`).

A rule said in the negative is the opposite of the danger and is not held: "never skip code
review", "don't disable the pre-commit hooks", "never force-push main" (the negation right
before the verb: "never mind, disable …" is still held).

The store keeps such a memory with status `held` and this reason; `loreline review` shows
them and a person approves or rejects each. Plain-text patterns, bounded, linear time.
"""

from __future__ import annotations

import re

from .patterns import MARKER_PREFIX

# what a quality gate is called: tests, review, linters, type checks, CI stages, hooks
_GATE = (r"(?:(?:the|all|any|our|your|those|these|its|their)\s+)?(?:(?:unit|integration|e2e|end-to-end|"
         r"failing|flaky|broken|ci|pr|code|lint|test|type|static|pre-commit|pre-push|commit|git)\s+){0,2}"
         r"(?:tests?|test\s+(?:suite|stage|step|job|run)s?|specs?|code\s+reviews?|reviews?|approvals?|linters?|linting|lint(?:\s+(?:stage|step|job|checks?))?|type[- ]?check(?:s|ing|er)?|"
         r"typing\s+checks?|mypy|pyright|tsc|eslint|ruff|flake8|pylint|clippy|rubocop|"
         r"ci(?:\s+(?:stages?|steps?|jobs?|checks?|pipelines?))?|(?:status|required)\s+checks?|checks|"
         r"pipelines?|hooks?|pre-commit|husky|branch\s+protection|coverage(?:\s+(?:gates?|checks?))?)\b")
# a rule said in the negative right before its verb: "never skip", "don't disable", "do not ever"
NEGATED = re.compile(r"(?i)\b(?:never|don't|dont|do\s+not|must\s+not|mustn't|should\s+not|shouldn't|"
                     r"cannot|can't|won't|will\s+not|not|no\s+one\s+(?:should|may))"
                     r"(?:\s+(?:ever|again|just|accidentally))?[\s,]+$")
_PUSH = re.compile(r"(?i)\bgit\s+push\b|\bforce[- ]push")
_PROTECTED = r"(?:main|master|trunk|release|production|prod|develop|protected|shared|default)\b"

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("runs remote code", re.compile(
        r"(?i)\b(?:curl|wget|iwr|invoke-webrequest|fetch)\b[^\n|]{0,300}\|\s{0,4}(?:sudo\s+)?(?:ba|z|k|da|fi)?sh\b"
        r"|\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?\$?<?\(\s{0,4}(?:curl|wget)\b"
        r"|\biex\s*\(?\s*(?:\(?\s*new-object\s+net\.webclient\)?\.downloadstring|iwr|invoke-webrequest|irm)\b"
        r"|\|\s{0,4}(?:python3?|perl|ruby|node)\s*(?:-\s*)?(?:$|[\n;&])"
        r"|\b(?:download|fetch)\s+(?:and|&)\s+(?:run|execute|exec|pipe)\b"
        r"|\beval\s+[\"']?\$\(\s{0,4}(?:curl|wget)\b")),
    ("disables a security check", re.compile(
        r"(?i)--no-verify\b|\bverify\s*=\s*false\b|\bcurl\b[^\n]{0,200}\s(?:-k|--insecure)\b"
        r"|node_tls_reject_unauthorized\s*=\s*['\"]?0|\bgit\s+config\b[^\n]{0,60}sslverify\s+false"
        r"|--dangerously-skip-permissions|--disable-(?:web-)?security\b|\bsetenforce\s+0\b|\bufw\s+disable\b"
        r"|\bset-mppreference\b[^\n]{0,80}-disable|--trusted-host\b|\bstrict-?host-?key-?checking\s*=?\s*no\b"
        r"|\b(?:disable|turn\s+off|skip|bypass|ignore|switch\s+off)\s+(?:the\s+|all\s+|any\s+)?"
        r"(?:ssl|tls|https|certificate|cert|signature|gpg|security|antivirus|anti-virus|firewall|2fa|mfa|"
        r"two-factor|sandbox(?:ing)?|permission|auth(?:entication)?|selinux|apparmor|defender|code\s+signing|"
        r"pre-commit|secret\s+scanning)\b(?:\s+(?:checks?|verification|scans?|prompts?|hooks?))?")),
    ("sends data out", re.compile(
        r"(?i)\b(?:send|upload|post|email|e-mail|mail|copy|exfiltrate|paste|share|forward|transmit)\b[^\n.]{0,80}"
        r"(?:\.env\b|id_rsa|id_ed25519|\.ssh\b|\.aws/credentials|credentials|secrets?|api[ _-]?keys?|tokens?|"
        r"passwords?|private\s+keys?|\.npmrc|\.netrc|kubeconfig|keychain)"
        r"[^\n.]{0,80}\b(?:to|into|at|on)\b"
        r"|\bcurl\b[^\n]{0,200}\s(?:-d|--data(?:-binary)?|-F|--form|-T|--upload-file)\s+['\"]?\S{0,40}@"
        r"[^\s'\"]{0,80}(?:\.env|id_rsa|\.ssh|credentials|secret|\.pem|\.key)\b"
        r"|\b(?:nc|ncat|netcat)\s+\S+\s+\d+\s*<|\bpastebin\b|\btransfer\.sh\b|\bwebhook\.site\b")),
    ("uses credentials", re.compile(
        r"(?i)\b(?:log\s*in|login|sign\s+in|authenticate|connect|ssh)\b[^\n.]{0,80}\bwith\s+(?:the\s+)?"
        r"(?:password|passphrase|token|api\s+key|key|credentials?)\b"
        r"|\buse\s+(?:the\s+|this\s+|my\s+)?(?:password|passphrase|token|api\s+key|secret|credentials?)\b"
        r"|\bsshpass\b|\bsudo\s+-S\b|\b(?:password|passphrase|passwd)\s+(?:is|=|:)\s+\S")),
    ("weakens a quality gate", re.compile(
        r"(?i)\b(?:skip(?:ping)?|disable|disabling|turn(?:ing)?\s+off|switch\s+off|bypass|circumvent|"
        r"comment\s+out|silence|suppress|get\s+rid\s+of|rip\s+out)\s+" + _GATE
        + r"|\b(?:never|don't|dont|do\s+not|no\s+need\s+to|stop|quit)\s+(?:ever\s+)?(?:bother(?:ing)?\s+"
        r"(?:with|to\s+run)|run(?:ning)?|wait(?:ing)?\s+for|request(?:ing)?|ask(?:ing)?\s+for)\s+"
        + _GATE + r"(?!\s+(?:in\s+parallel|concurrently|against|twice|on\s+(?:prod|production|the\s+server)))"
        + r"|\bmark\s+(?:the\s+|all\s+|any\s+)?(?:failing|broken|flaky|red)\s+tests?\s+(?:as\s+)?"
        r"(?:skip(?:ped)?|xfail|pending|ignored?)\b"
        r"|\bmerge\b[^\n.]{0,40}\bwithout\s+(?:a\s+|any\s+)?(?:code\s+)?(?:review|approval|tests?|ci|checks)\b"
        r"|\bskip_?tests?\s*=\s*(?:1|true|yes)\b|-dskiptests\b|--skip-?tests?\b|\bhusky\s*=\s*0\b"
        r"|\bSKIP\s*=\s*[\w,-]+|\[(?:skip\s+ci|ci\s+skip)\]"
        r"|\b(?:git\s+push\b[^\n]{0,40}\s(?:--force(?!-with-lease)|-f)\b|force[- ]push(?:ing|es|ed)?\b)"
        r"(?=[^\n.]{0,60}\b" + _PROTECTED + r")"
        r"|\b" + _PROTECTED + r"[^\n.]{0,60}?\b(?:git\s+push\b[^\n]{0,40}\s(?:--force(?!-with-lease)|-f)\b|"
        r"force[- ]push(?:ing|es|ed)?\b)")),
)
#: reasons whose match does not count when the rule is said in the negative right before it
_NEGATABLE = ("disables a security check", "weakens a quality gate")


def hold_reason(text: str) -> str | None:
    """Why `text` must wait for a person's review before it is injected or recalled; else None."""
    if MARKER_PREFIX in text:
        return "uses credentials (the memory holds a redacted secret)"
    for reason, pattern in _RULES:
        for found in pattern.finditer(text):
            if reason in _NEGATABLE and _negated(text, found):
                continue
            return f"{reason}: {found.group().strip()[:80]}"
    return None


def _negated(text: str, found: re.Match[str]) -> bool:
    """The match is a rule against the danger: a negation right before it ("never skip", "don't
    force-push main"), or before the verb of its own sentence for a branch named first ("main is
    never force-pushed" is not matched at all)."""
    if found.group()[:4].lower() in ("neve", "don'", "dont", "do n", "no n", "stop", "quit"):
        return False  # the negation is the rule itself: "never run the tests"
    verb = _PUSH.search(text, found.start(), found.end())
    at = verb.start() if verb is not None and verb.start() > found.start() else found.start()
    return NEGATED.search(text, max(0, at - 40), at) is not None
