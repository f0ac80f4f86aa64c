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
  "use the token …", `sshpass`, `sudo -S`.

The store keeps such a memory with status `held` and this reason; `loreline review` shows
them and a person approves or rejects each. Plain-text patterns, bounded, linear time.
"""

from __future__ import annotations

import re

from .patterns import MARKER_PREFIX

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
)


def hold_reason(text: str) -> str | None:
    """Why `text` must wait for a person's review before it is injected or recalled; else None."""
    if MARKER_PREFIX in text:
        return "uses credentials (the memory holds a redacted secret)"
    for reason, pattern in _RULES:
        found = pattern.search(text)
        if found:
            return f"{reason}: {found.group().strip()[:80]}"
    return None
