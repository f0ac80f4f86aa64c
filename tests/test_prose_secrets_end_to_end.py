"""Secrets said in ordinary sentences never stay: a session whose user and assistant turns give
passwords in nine languages, a login pair, a texted code, GitHub recovery codes, a list of codes
after a lead-in line, a login link with its token in the path, pasted command lines (a password
flag, `PGPASSWORD=`, `DOMAIN/user:password@host`) and a card with its expiry and CVC is imported with the rules backend and with the anthropic backend (against
the loopback fake, which records request bodies). No secret is then in any file under
LORELINE_HOME (raw bytes, the WAL included), in any CLI output, in any model request or in the
SessionStart block.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.conftest import loreline_exe, subprocess_env
from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

RECOVERY = ["4c1e9-a07d2", "b83f0-9e6a1", "0d7c5-f2b48", "e91a3-6c0f7", "5f2d8-b41e0", "a6e07-3d9c2"]
LISTED = ["k3m9x-2p7qa", "q8w4z-1n6bt", "r5t2y-7u3cx", "h7dvw-0ep4m"]  # a lead-in line, then one code a line
LOGIN_TOKEN = "Xk9fQ2mZ7vB4nL8pR3sT6wY1aC5dE0gH2jK4mN6qP8r"
SECRETS = {
    "en": "Tr0ub4dor&3xyzQ", "de": "Sommer2024!Kaffee", "de-lautet": "Hafen#Wind2031",
    "fr": "Chaton_Bleu_77x", "es": "PerroVerde#2019z", "pt": "Jabuti!Verde42", "it": "Gatto_Nero_88",
    "ja": "hikariNeko5521", "zh": "Lianxi#2024abc", "ru": "Medved2024!x", "pair": "Sup3rS3cret-Vault9",
    "otp": "217974", "card": "4539 1488 0343 6467", "cvc": "CVC 913",
    **{f"recovery{i}": code for i, code in enumerate(RECOVERY)},
    **{f"listed{i}": code for i, code in enumerate(LISTED)},
    "login-token": LOGIN_TOKEN, "cmd-rdp": "Qv7#rLm2x", "cmd-pg": "horizons", "cmd-impacket": "Falcon77!",
}
USER_TURNS = [
    f"use my db password {SECRETS['en']} for staging",
    f"das Passwort {SECRETS['de']} für den Staging-Server, bitte merken",
    f"Das Passwort lautet {SECRETS['de-lautet']}",
    f"mot de passe admin {SECRETS['fr']}",
    f"usa siempre la contraseña {SECRETS['es']} en staging",
    f"a senha do banco é {SECRETS['pt']}",
    f"la password del server è {SECRETS['it']}",
    f"パスワードは {SECRETS['ja']}! です",
    f"密码统一用 {SECRETS['zh']}",
    f"пароль от сервера: {SECRETS['ru']}",
    f"the code they texted me is {SECRETS['otp']}",
    "my GitHub recovery codes:\n" + "\n".join(RECOVERY),
    f"charge it to card {SECRETS['card']} exp 09/28 {SECRETS['cvc']}",
    "Here are your recovery codes:\n" + "\n".join(LISTED),
    f"the login link from the mail: https://clients.host.example/portal/login/{LOGIN_TOKEN}",
    f"these worked for me:\n$ rdesktop -u admin -p {SECRETS['cmd-rdp']} 10.0.4.12\n"
    f"$ PGPASSWORD={SECRETS['cmd-pg']} psql -h db -U app -c 'SELECT 1'\n"
    f"$ secretsdump.py CORP/alice:{SECRETS['cmd-impacket']}@10.0.8.21",
]
ASSISTANT_PAIR = f"Sure, log in with admin / {SECRETS['pair']} as you said, then restart the worker."


def _session(tmp_path: Path) -> tuple[Path, Path, dict[str, int]]:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    s = ClaudeSession(str(cwd))
    lines = {"pnpm": s.user("In this repo we use pnpm, never npm, because the lockfile is pnpm-lock.yaml.")}
    s.assistant("Understood: I will use pnpm for every install.")
    for index, text in enumerate(USER_TURNS):
        lines[f"user{index}"] = s.user(text)
        s.assistant("Noted.")
    s.user("How do I get into the admin panel?")
    lines["pair"] = s.assistant(ASSISTANT_PAIR)
    return s.write(tmp_path / "session.jsonl"), cwd, lines


def _leaks(blob: bytes) -> list[str]:
    return [name for name, secret in SECRETS.items() if secret.encode() in blob]


def _cli(home: Path, *args: str, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, timeout=300,
                          env=subprocess_env(home, **(extra or {})))


def _check(home: Path, path: Path, cwd: Path) -> None:
    for file in home.rglob("*"):
        if file.is_file():
            assert _leaks(file.read_bytes()) == [], file
    outputs = []
    for args in (("memories", "--all"), ("memories", "--all", "--json", "--status", "any"), ("review", "--all"),
                 ("recall", "password", "--project", "/"), ("recall", "code", "--include-inactive"),
                 ("transcript", str(path))):
        result = _cli(home, *args)
        outputs.append(result.stdout + result.stderr)
    with Store() as store:
        ids = [int(r[0]) for r in store.rows("SELECT id FROM memories")]
    for memory_id in ids:
        result = _cli(home, "show", str(memory_id), "--json")
        outputs.append(result.stdout + result.stderr)
    assert _leaks("\n".join(outputs).encode()) == []
    from loreline_hooks import context

    block = context.memory_block(str(cwd), 9000) or ""
    assert "pnpm" in block  # ordinary preferences still come through
    assert _leaks(block.encode()) == []


def test_rules_backend_keeps_no_prose_secret(tmp_path: Path, loreline_home: Path) -> None:
    path, cwd, _ = _session(tmp_path)
    result = _cli(loreline_home, "import", "sessions", "--path", str(path), "--backend", "rules")
    assert result.returncode == 0, result.stderr
    assert _leaks((result.stdout + result.stderr).encode()) == []
    _check(loreline_home, path, cwd)


def test_anthropic_backend_sends_no_prose_secret(tmp_path: Path, loreline_home: Path,
                                                 fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    path, cwd, lines = _session(tmp_path)
    fake_anthropic.default = FakeAnthropic.tool("record_memories", {"memories": [
        {"kind": "preference", "text": "The repo installs packages with pnpm, never npm.",
         "evidence": [{"line": lines["pnpm"], "quote": "we use pnpm, never npm"}]},
    ]})
    extra = {"ANTHROPIC_BASE_URL": fake_anthropic.url, "ANTHROPIC_API_KEY": "sk-ant-api03-" + "T" * 20 + "fake",
             "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    result = _cli(loreline_home, "import", "sessions", "--path", str(path), "--backend", "anthropic", extra=extra)
    assert result.returncode == 0, result.stderr
    assert fake_anthropic.requests, "the model was never asked"
    bodies = json.dumps([request.body for request in fake_anthropic.requests], ensure_ascii=False)
    assert "[REDACTED:password]" in bodies and "[REDACTED:otp]" in bodies
    assert _leaks(bodies.encode()) == [] and _leaks(json.dumps([r.body for r in fake_anthropic.requests]).encode()) == []
    assert _leaks((result.stdout + result.stderr).encode()) == []
    _check(loreline_home, path, cwd)
