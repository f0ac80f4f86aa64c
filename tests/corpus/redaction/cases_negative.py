"""Negatives: text that looks like a secret, or mentions one, and must come out byte-identical."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from collections.abc import Callable

Row = dict[str, object]
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits


def negative_cases(rng: random.Random, rand: Callable[..., str], uuid: Callable[[], str]) -> list[Row]:
    def sha1() -> str:
        return hashlib.sha1(rng.randbytes(16)).hexdigest()

    def sha256() -> str:
        return hashlib.sha256(rng.randbytes(16)).hexdigest()

    def sri() -> str:
        return "sha512-" + base64.b64encode(hashlib.sha512(rng.randbytes(16)).digest()).decode()

    def b64(n: int) -> str:
        return base64.b64encode(rng.randbytes(n)).decode()

    families: dict[str, list[Callable[[], str]]] = {
        "git-sha": [
            lambda: f"commit {sha1()}\nAuthor: Dana <dana@acme.dev>\n\n    fix flaky test",
            lambda: f"git checkout {sha1()[:12]} && git cherry-pick {sha1()}",
            lambda: json.dumps({"sha": sha1(), "message": "Merge pull request #42"}),
            lambda: f"HEAD is now at {sha1()[:7]} chore: bump deps",
            lambda: f"  {sha1()[:10]}..{sha1()[:10]}  main -> main",
            lambda: f"git_commit_sha={sha1()}",
        ],
        "uuid": [
            lambda: f"session {uuid()} resumed",
            lambda: json.dumps({"id": uuid(), "parentUuid": uuid(), "type": "user"}),
            lambda: f"request_id={uuid()} status=200 duration_ms=38",
            lambda: f"X-Request-Id: {uuid()}",
            lambda: f"tenant_id: {uuid()}\nsubscription_id: {uuid()}",
            lambda: f"AZURE_CLIENT_ID={uuid()}",
        ],
        "digest": [
            lambda: f"FROM python:3.12-slim@sha256:{sha256()}",
            lambda: f"{sha256()}  dist/acme-1.2.0.tar.gz",
            lambda: json.dumps({"checksum": sha256(), "size": rng.randint(1000, 99999)}),
            lambda: f"--hash=sha256:{sha256()} \\",
            lambda: f"Digest: sha256:{sha256()}",
            lambda: f"etag: \"{hashlib.md5(rng.randbytes(8)).hexdigest()}\"",
        ],
        "lockfile": [
            lambda: f'    "integrity": "{sri()}",',
            lambda: f"  integrity {sri()}",
            lambda: f"github.com/acme/lib v1.4.2 h1:{b64(32)}",
            lambda: json.dumps({"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz", "integrity": sri()}),
            lambda: f'checksum = "{sha256()}"',
            lambda: f"  resolution: {{integrity: {sri()}}}",
        ],
        "placeholder": [
            lambda: "export OPENAI_API_KEY=YOUR_API_KEY",
            lambda: "Authorization: Bearer <your-token>",
            lambda: "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
            lambda: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            lambda: "OPENAI_API_KEY=sk-...xxxx",
            lambda: "DB_PASSWORD=changeme",
            lambda: "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            lambda: "API_KEY=your_api_key_here",
            lambda: "password: ********",
            lambda: 'token: "[REDACTED]"',
            lambda: "secret = <redacted>",
            lambda: 'STRIPE_SECRET_KEY="sk_live_..."',
            lambda: "SLACK_BOT_TOKEN=xoxb-your-bot-token",
            lambda: '"password": "<PASSWORD>"',
            lambda: "ANTHROPIC_API_KEY=sk-ant-...",
            lambda: "postgres://user:password@localhost:5432/app",
            lambda: "mysql://root:****@db/app",
            lambda: "API_TOKEN=[REDACTED:token]",
            lambda: "DATABASE_URL=postgres://app:[REDACTED:db-credentials]@db/app",
            lambda: "SECRET_KEY=REPLACE_ME",
            lambda: "client_secret: xxxxxxxxxxxxxxxx",
            lambda: "password = 'your-password'",
        ],
        "reference": [
            lambda: 'password = os.environ["DB_PASSWORD"]',
            lambda: "const token = process.env.GITHUB_TOKEN;",
            lambda: 'api_key = os.getenv("OPENAI_API_KEY")',
            lambda: "export DB_PASSWORD=${DB_PASSWORD}",
            lambda: "API_KEY=$API_KEY ./run.sh",
            lambda: "token: ${{ secrets.GITHUB_TOKEN }}",
            lambda: "password: {{ .Values.db.password }}",
            lambda: 'curl -H "Authorization: Bearer $TOKEN" https://api.acme.dev',
            lambda: 'headers = {"Authorization": f"Bearer {token}"}',
            lambda: "DATABASE_URL=postgres://${DB_USER}:${DB_PASS}@db/app",
            lambda: "secret_key = settings.SECRET_KEY",
            lambda: "password = getpass.getpass()",
            lambda: "token = request.headers.get('X-Token')",
            lambda: "self.password = password",
            lambda: "client = Client(api_key=api_key)",
            lambda: "conn = connect(password=pw)",
            lambda: "    password=password,",
            lambda: 'PGPASSWORD="$(cat /run/secrets/db)" psql',
            lambda: "auth_token = config['auth_token']",
            lambda: "set DB_PASSWORD=%DB_PASSWORD%",
            lambda: "password: !vault |",
            lambda: "token = get_token()",
        ],
        "public-key": [
            lambda: f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{rand(300, ALNUM + '+/')}= dana@laptop",
            lambda: f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rand(43, ALNUM + '+/')} ci@acme",
            lambda: "-----BEGIN PUBLIC KEY-----\n" + "\n".join(rand(64, ALNUM + "+/") for _ in range(5)) + "\n-----END PUBLIC KEY-----",
            lambda: "-----BEGIN CERTIFICATE-----\n" + "\n".join(rand(64, ALNUM + "+/") for _ in range(8)) + "\n-----END CERTIFICATE-----",
            lambda: f"public_key = \"{b64(32)}\"",
            lambda: "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
            lambda: "Paste your key between -----BEGIN OPENSSH PRIVATE KEY----- and the END line.",
        ],
        "base64-data": [
            lambda: f"echo {base64.b64encode(b'hello from the build server').decode()} | base64 -d",
            lambda: f"data:image/png;base64,{b64(48)}",
            lambda: json.dumps({"thumbnail": b64(60), "width": 64}),
            lambda: f"font-src url(data:font/woff2;base64,{b64(40)})",
            lambda: f"Content-MD5: {b64(16)}",
            lambda: f"eyJ{b64(30)} is just base64 JSON without dots",
        ],
        "prose": [
            lambda: "Make sure the password is at least 12 characters long.",
            lambda: "Rotate the token every 90 days and never commit it.",
            lambda: "The API key lives in 1Password under 'Acme prod'.",
            lambda: "password: ",
            lambda: "password:",
            lambda: "token:\n  description: The token to use",
            lambda: "I reset my password yesterday and now SSO fails.",
            lambda: "The secret is to cache the results per tenant.",
            lambda: "Use a fine-grained token with read-only scope.",
            lambda: "Keys starting with AKIA are long-lived access key ids.",
            lambda: "The auth flow redirects to /callback with a code.",
            lambda: "Cookies are cleared on logout.",
            lambda: "The model used 1,234 tokens for that answer.",
            lambda: "the password is wrong",
            lambda: "My password is stored in the keychain.",
            lambda: "Set the API_KEY env var before running.",
            lambda: "passwords must not be logged",
            lambda: "The bearer token expires after an hour.",
            lambda: "Is the secret key required for local dev?",
            lambda: "Where do I put my token? In ~/.config/acme/credentials.",
            lambda: "password manager: 1Password 8",
            lambda: "Password reset link: https://acme.dev/reset/4f9a2c",
            lambda: "API key: see the team vault",
            lambda: "The access token: expires in 3600s",
            lambda: "password (optional): leave empty for SSO",
        ],
        "type-annotation": [
            lambda: "password: str",
            lambda: "token: Optional[str] = None",
            lambda: "apiKey: string;",
            lambda: "def login(username: str, password: str) -> Session:",
            lambda: "secret: SecretStr = Field(...)",
            lambda: "  password: string | undefined",
            lambda: "func Auth(token string) error {",
            lambda: "pub password: String,",
        ],
        "code-identifier": [
            lambda: "max_tokens=4096,",
            lambda: "token_count = len(tokenizer.encode(text))",
            lambda: "id = Column(Integer, primary_key=True)",
            lambda: "public_key = load_pem_public_key(data)",
            lambda: 'key = "user_id"',
            lambda: "for key, value in sorted(items):",
            lambda: 'secretName: "db-credentials"',
            lambda: "tokenUrl: https://auth.acme.dev/oauth/token",
            lambda: "password_min_length = 12",
            lambda: "auth: true",
            lambda: 'token_type: "bearer"',
            lambda: "password = None",
            lambda: 'password = ""',
            lambda: "pass_rate: 0.98",
            lambda: "keyboard: qwerty",
            lambda: "KEY_ID=alias/acme-prod",
            lambda: "ENV GPG_KEY A035C8C19219BA821ECEA86B64E628F8D684696D",
            lambda: "--mount=type=secret,id=npm_token",
            lambda: "import { token } from './auth'",
            lambda: "cache_key = f'{user}:{page}'",
            lambda: "idempotency_key = uuid4().hex",
            lambda: "input_tokens: 1532",
            lambda: "next_page_token = resp.next_page_token",
            lambda: "credentials: include",
            lambda: "secrets: inherit",
            lambda: "password_hash = bcrypt.hashpw(pw, salt)",
            lambda: "csrf_token = generate_csrf()",
            lambda: "author: Dana Scully",
            lambda: "if not token:\n    raise AuthError('missing token')",
            lambda: "assert auth.status_code == 401",
            lambda: "mkdir -p build/out && cp -p a b",
            lambda: "docker run -p 8080:80 -p 443:443 nginx:1.27",
            lambda: "mysql -u root -p shop < dump.sql",
            lambda: "echo \"$CR_PAT\" | docker login ghcr.io -u dana --password-stdin",
            lambda: "mysql -p$MYSQL_ROOT_PASSWORD app",
            lambda: "def check_password(password: str) -> bool:",
        ],
        "object-id": [
            lambda: f"toolu_01{rand(22, ALNUM)}",
            lambda: f"msg_01{rand(22, ALNUM)}",
            lambda: f"req_{rand(24, ALNUM)}",
            lambda: f"chatcmpl-{rand(29, ALNUM)}",
            lambda: f"call_{rand(24, ALNUM)}",
            lambda: f"customer cus_{rand(14, ALNUM)} paid invoice in_{rand(24, ALNUM)}",
            lambda: f"STRIPE_PUBLISHABLE_KEY=pk_live_{rand(24)}",
            lambda: f"GOOGLE_CLIENT_ID={rand(12, string.digits)}-{rand(32, string.ascii_lowercase + string.digits)}.apps.googleusercontent.com",
            lambda: f"arn:aws:iam::{rand(12, string.digits)}:role/ci-deploy",
            lambda: f"AROA{rand(17, string.ascii_uppercase + string.digits)} is the role id",
        ],
        "url": [
            lambda: "https://dana@github.com/acme/api.git",
            lambda: "ssh://git@github.com/acme/api.git",
            lambda: "git@github.com:acme/api.git",
            lambda: "http://localhost:8080/users/@me",
            lambda: "http://[::1]:8080/health",
            lambda: "redis://localhost:6379/0",
            lambda: "https://docs.acme.dev/guide?section=auth&lang=en",
            lambda: "https://example.com/login?redirect=/home",
            lambda: f"https://o{rand(6, string.digits)}.ingest.sentry.io/api/{rand(7, string.digits)}/envelope/",
            lambda: "mailto:ops@acme.dev",
        ],
        "hex-and-misc": [
            lambda: f"color: #{rand(6, HEX)}; background: #{rand(6, HEX)};",
            lambda: f"trace_id={rand(32, HEX)} span_id={rand(16, HEX)}",
            lambda: f"{'/'.join(rand(8, string.ascii_lowercase) for _ in range(6))}/index.ts",
            lambda: "ThisIsAVeryLongIdentifierNameForTesting = 1",
            lambda: f"fingerprint: SHA256:{b64(32).rstrip('=')}",
            lambda: f"gpg --recv-keys {rand(40, HEX).upper()}",
            lambda: "cargo build --release --target x86_64-unknown-linux-musl",
            lambda: f"Build {rand(8, HEX)} finished in 3m12s",
            lambda: "const SUPER_LONG_CONSTANT_NAME_FOR_CONFIG_VALUES = 'enabled'",
            lambda: f"{rand(8, HEX)}-{rand(4, HEX)}: license verified",
        ],
    }
    rows: list[Row] = []
    for family, makers in families.items():
        repeats = 2 if len(makers) <= 10 else 1
        for make in makers:
            seen: set[str] = set()
            for _ in range(repeats):
                text = make()
                if text not in seen:
                    seen.add(text)
                    rows.append({"family": family, "text": text})
    return rows
