"""Secrets said in sentences and typed on command lines, truncated tokens, key-shaped values,
and the families added with them (Azure DevOps PATs, Ethereum keys, seed phrases, Docker
`auth`, session cookies, PuTTY keys, URL query tokens, GCP service-account JSON); and their
look-alikes. Own RNG, so adding rows here leaves the older rows of the corpus as they were.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

Row = dict[str, object]
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
_AVOID = ("example", "xxxx", "abcdefgh", "12345678", "01234567", "your", "redact", "dummy", "here",
          "fake", "test", "sample", "insert", "enter", "change", "replace", "holder")
_WORDS = ("Falcon", "Quartz", "Maple", "Orbit", "Nimbus", "Cobalt", "Juniper", "Sunflower", "Glacier")
_SEED_WORDS = ("abandon ability able about above absent absorb abstract absurd abuse access accident "
               "acoustic acquire across action actor actress actual adapt address adjust admit adult "
               "advance advice aerobic affair afford afraid again agent agree ahead aim air airport").split()


def prose_cases(seed: int = 20261201) -> tuple[list[Row], list[Row]]:
    """(positives, negatives) for the forms above."""
    rng = random.Random(seed)

    def rand(n: int, alphabet: str = ALNUM) -> str:
        while True:
            value = "".join(rng.choice(alphabet) for _ in range(n))
            if not any(a in value.lower() for a in _AVOID) and (alphabet != ALNUM or n < 12 or (
                    any(c.isdigit() for c in value) and any(c.isupper() for c in value)
                    and any(c.islower() for c in value))):
                return value

    def pw() -> str:
        return rng.choice(_WORDS) + rand(2, string.digits) + rng.choice("!#%&*+=~") + rand(3, string.ascii_letters)

    positives = _passwords(pw, rng) + _commands(pw) + _tokens(rand, rng) + _families(rand, rng) + _code_forms(rand)
    return positives, _negatives()


def _row(family: str, context: str, text: str, secret: str, is_json: bool = False) -> Row:
    assert secret in text, (text, secret)
    return {"family": family, "context": context, "text": text, "secret": secret, "json": is_json}


_PROSE: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("log-in-with", lambda s: f"From now on, always log in as admin with password {s} on staging"),
    ("login-with-the", lambda s: f"log into the console with the password {s} and check the queue"),
    ("passphrase-to-is", lambda s: f"the passphrase to the vault is {s}"),
    ("password-for-is", lambda s: f"The root password for the db box is {s}."),
    ("pw-colon", lambda s: f"pw: {s}"),
    ("use-as-password", lambda s: f"use {s} as the admin password"),
    ("quoted-is", lambda s: f"The password is '{s} Horse'"),
    ("french", lambda s: f"Le mot de passe est {s}"),
    ("spanish", lambda s: f"contraseña: {s}"),
    ("german", lambda s: f"Passwort: {s}"),
    ("password-colon-punct", lambda s: f"password: {s}&3q"),
    ("my-password-is", lambda s: f"fyi my password is {s}, don't share it"),
    ("json-escaped", lambda s: json.dumps({"prompt": f"login with password {s} please"})),
)


def _passwords(pw: Callable[[], str], rng: random.Random) -> list[Row]:
    rows = []
    for context, make in _PROSE:
        for _ in range(2):
            secret = pw()
            text = make(secret)
            if context == "quoted-is":
                secret = f"{secret} Horse"
            elif context == "password-colon-punct":
                secret = f"{secret}&3q"
            rows.append(_row("password", "prose-" + context, text, secret, context == "json-escaped"))
    return rows


def _commands(pw: Callable[[], str]) -> list[Row]:
    makers: tuple[tuple[str, Callable[[str], str]], ...] = (
        ("mysql-p", lambda s: f"mysql -u root -p{s} -h db.internal app"),
        ("sshpass", lambda s: f"sshpass -p '{s}' ssh deploy@10.0.0.4"),
        ("docker-login", lambda s: f"docker login -u ci -p {s} registry.acme.io"),
        ("psql-url", lambda s: f'psql "postgresql://app:{s}@db.internal:5432/app"'),
        ("psql-url-bare", lambda s: f"psql postgres://app:{s}@db/app -c 'select 1'"),
        ("redis-cli", lambda s: f"redis-cli -h cache.internal -a {s} ping"),
        ("mysql-long", lambda s: f"mysqldump --user=root --password={s} app > dump.sql"),
    )
    rows = []
    for context, make in makers:
        for _ in range(2):
            secret = pw().replace("&", "").replace("#", "")
            rows.append(_row("password", "cmd-" + context, make(secret), secret))
    return rows


def _tokens(rand: Callable[..., str], rng: random.Random) -> list[Row]:
    rows = []
    for _ in range(3):
        cut = "ghp_" + rand(26)
        rows.append(_row("github-token", "truncated", f"the token starts with {cut} (cut off in the log)", cut))
        cut = "sk-ant-api03-" + rand(17, ALNUM + "-_")
        rows.append(_row("anthropic-key", "truncated", f"ANTHROPIC_API_KEY={cut}", cut))
        key = "AKIA" + rand(16, string.ascii_uppercase + "0123456789")
        rows.append(_row("aws-access-key", "prose-key-for", f"Here is the key for staging: {key}", key))
        other = rand(28)
        rows.append(_row("api-key", "prose-key-for", f"the token for the build bot: {other}", other))
        other = rand(40)
        rows.append(_row("key", "bare-key", f"[DEBUG] Using Key={other}", other))
    return rows


def _code_forms(rand: Callable[..., str]) -> list[Row]:
    """Name and value as call arguments, a literal on the next line, comparisons, curl users."""
    rows = []
    for _ in range(2):
        key = rand(32)
        rows.append(_row("api-key", "call-pair", f'headers.put("X-Api-Key", "{key}");', key))
        rows.append(_row("api-key", "next-line", f'const stripeApiKey =\n    "{key}";', key))
        rows.append(_row("api-key", "not-equal", f'if (api_key !== "{key}") {{ deny(); }}', key))
        rows.append(_row("basic-auth", "curl-user-quoted", f"curl --user deploy:'{key[:18]}' https://ci.acme.io", key[:18]))
        rows.append(_row("bearer-token", "other-scheme", f'-H "Authorization: Api-Token {key}"', key))
        rows.append(_row("basic-auth", "curl-key-as-user", f"curl -u {key}: https://api.acme.io/v1/charges", key))
    return rows


def _families(rand: Callable[..., str], rng: random.Random) -> list[Row]:
    rows = []
    for _ in range(3):
        pat = rand(52, "abcdefghijklmnopqrstuvwxyz234567")
        rows.append(_row("azure-devops-pat", "env", f"export AZURE_DEVOPS_EXT_PAT={pat}", pat))
        rows.append(_row("azure-devops-pat", "prose", f"my azure devops pat is {pat}", pat))
        eth = rand(64, HEX)
        rows.append(_row("ethereum-private-key", "prose", f"wallet private key: 0x{eth}", eth))
        words = " ".join(rng.choice(_SEED_WORDS) for _ in range(12))
        rows.append(_row("seed-phrase", "prose", f"my seed phrase is: {words}", words))
        auth = base64.b64encode(f"ci:{rand(20)}".encode()).decode()
        doc = json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": auth}}})
        rows.append(_row("docker-auth", "config-json", doc, auth, True))
        sid = rand(32)
        rows.append(_row("cookie", "header", f"Cookie: theme=dark; sessionid={sid}; lang=en", sid))
        rows.append(_row("cookie", "curl-b", f"curl -b 'session={sid}' https://app.acme.io/api", sid))
        tok = rand(32)
        rows.append(_row("query-token", "url", f"GET https://api.acme.io/v1/items?access_token={tok}&page=2", tok))
        rows.append(_row("query-token", "url-apikey", f"see https://maps.acme.io/tile?apikey={tok}", tok))
        body = rand(64, ALNUM + "+/")
        putty = (f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
                 f"AAAAC3NzaC1lZDI1NTE5AAAAI{rand(20)}\n{rand(20)}\nPrivate-Lines: 1\n{body}\n"
                 f"Private-MAC: {rand(64, HEX)}")
        rows.append(_row("ssh-private-key", "putty", putty, body))
        key_body = "\\n".join(rand(64, ALNUM + "+/") for _ in range(4))
        sa = ('Here is the file:\n{"type": "service_account", "project_id": "acme-prod", '
              f'"private_key_id": "{rand(40, HEX)}", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
              f'{key_body}\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}}'
              "\nCan you tell me why the deploy fails?")
        rows.append(_row("private-key", "gcp-sa-json", sa, key_body.split("\\n")[1]))
    return rows


def _negatives() -> list[Row]:
    texts = (
        "the password is required", "Please enter your password: ", "password: ", 'password=""',
        "use the admin password from 1Password", "mysql -u root -p mydb", "password: <your-password>",
        "the key is in the drawer", "the password policy changed in 2024", "key: value",
        "reset the password for user42", "password = getpass.getpass()", "the password was incorrect",
        "pw: ********", "token: [REDACTED]", "api_key = ''", "Passwort: <geheim>",
        "Le mot de passe est obligatoire", "use a strong password as the admin password",
        "the token for the build bot is stored in Vault", "key = cache_key(user.id, page)",
        "curl -u user:password https://example.com", "Cookie: theme=dark; lang=en",
        "https://docs.acme.io/search?q=token&page=2", "my seed phrase is safe in the drawer",
        "password_min_length: 12", 'headers.put("X-Api-Key", "application/json")', "if (password == other) {",
        "  password: pwd,", 'config.get("token", "default")', "secret: ${{ secrets.DEPLOY_KEY }}",
    )
    keep_apart = 'Here is the file:\n{"type": "service_account", "project_id": "acme-prod"}\nWhy?'
    return [{"family": "prose-lookalike", "text": t} for t in texts + (keep_apart,)]
