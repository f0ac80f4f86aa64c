"""Positives whose secret is found by context: names, URLs, headers, cookies, key blocks."""

from __future__ import annotations

import base64
import json
import random
import string
import textwrap
from collections.abc import Callable

Row = dict[str, object]
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"


def _row(family: str, context: str, text: str, secret: str, is_json: bool = False) -> Row:
    return {"family": family, "context": context, "text": text, "secret": secret, "json": is_json}


def context_positives(rng: random.Random, rand: Callable[..., str], password: Callable[[], str],
                      jwt: Callable[[], str], uuid: Callable[[], str]) -> list[Row]:
    rows: list[Row] = []
    rows += _passwords(rng, rand, password)
    rows += _named(rng, rand, uuid)
    rows += _urls(rng, rand)
    rows += _headers(rng, rand, jwt)
    rows += _keys(rng, rand)
    rows += _chat_and_shell(rand, password)
    return rows


def _chat_and_shell(rand: Callable[..., str], password: Callable[[], str]) -> list[Row]:
    """Secrets typed into a chat or a shell without a `NAME=` in front."""
    templates: list[tuple[str, str, Callable[[str], str], Callable[[], str]]] = [
        ("api-key", "prose-api-key", lambda s: f"API key: {s} (staging only, please)", lambda: rand(32)),
        ("api-key", "prose-secret-key-is", lambda s: f"ok so the secret key is {s} for now", lambda: rand(24)),
        ("token", "prose-access-token", lambda s: f"My access token: {s}", lambda: rand(40, ALNUM + "-_")),
        ("token", "prose-bot-token", lambda s: f"bot token = {s}", lambda: rand(30)),
        ("password", "prose-password-for", lambda s: f"The password for the admin panel: {s}", password),
        ("password", "prose-db-password-paren", lambda s: f"DB password (prod): {s} - rotate it after the demo", password),
        ("password", "mysql-short-flag", lambda s: f"$ mysql -h 127.0.0.1 -u root -p{s} shop < seed.sql", lambda: rand(12)),
        ("password", "sshpass", lambda s: f"sshpass -p '{s}' ssh deploy@10.0.4.12 'sudo systemctl restart api'", password),
        ("password", "docker-login-p", lambda s: f"docker login -u ci -p {s} registry.acme.dev", lambda: rand(20)),
    ]
    return [_row(family, context, make(secret), secret) for family, context, make, gen in templates
            for secret in [gen()]]


def _passwords(rng: random.Random, rand: Callable[..., str], password: Callable[[], str]) -> list[Row]:
    templates: list[tuple[str, Callable[[str], str], bool]] = [
        ("shell", lambda p: f"export DB_PASSWORD={p}", False),
        ("dotenv", lambda p: f"PGHOST=db.internal\nPGUSER=app\nPGPASSWORD={p}\nPGDATABASE=app", False),
        ("json", lambda p: json.dumps({"username": "admin", "password": p}), True),
        ("json-nested", lambda p: json.dumps({"db": {"host": "db", "user": "app", "password": p}}), True),
        ("yaml", lambda p: f"database:\n  host: db.internal\n  username: app\n  password: {p}\n  port: 5432", False),
        ("yaml-quoted", lambda p: f'spring:\n  datasource:\n    password: "{p}"', False),
        ("python", lambda p: f'DB_PASSWORD = "{p}"\nengine = connect(DB_PASSWORD)', False),
        ("python-kwarg", lambda p: f'conn = psycopg.connect(host="db", user="app", password="{p}")', False),
        ("python-annotated", lambda p: f'def login(user: str, password: str = "{p}") -> None:', False),
        ("docker", lambda p: f"docker run -d -e POSTGRES_PASSWORD={p} -p 5432:5432 postgres:16", False),
        ("flag-eq", lambda p: f"mysql -h db -u root --password={p} app < dump.sql", False),
        ("flag-space", lambda p: f"./manage.py createsuperuser --username admin --password {p}", False),
        ("netrc", lambda p: f"machine git.acme.dev\n  login deploy\n  password {p}", False),
        ("dockerfile", lambda p: f"FROM node:20\nENV DB_PASSWORD {p}\nRUN npm ci", False),
        ("xml", lambda p: f"<datasource>\n  <username>app</username>\n  <password>{p}</password>\n</datasource>", False),
        ("ini", lambda p: f"[pypi]\nusername = __token__\npassword = {p}\n", False),
        ("ado-connection-string", lambda p: f'"Server=tcp:acme.database.windows.net,1433;Database=app;User ID=sqladmin;Password={p};Encrypt=true;"', False),
        ("odbc", lambda p: f"DRIVER={{ODBC Driver 18}};SERVER=db;UID=sa;PWD={p};", False),
        ("toml", lambda p: f'[database]\nuser = "app"\npassword = "{p}"', False),
        ("js-object", lambda p: f"const config = {{\n  user: 'app',\n  password: '{p}',\n}};", False),
        ("php", lambda p: f"'mysql' => ['username' => 'forge', 'password' => '{p}'],", False),
        ("go", lambda p: f'cfg := Config{{User: "app", Password: "{p}"}}', False),
        ("properties", lambda p: f"spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password={p}", False),
        ("prose", lambda p: f"the staging db password is {p} if you need to log in", False),
        ("json-tool-input", lambda p: json.dumps({"command": f"PGPASSWORD='{p}' psql -h db -U app -c 'select 1'"}), True),
        ("json-escaped-yaml", lambda p: json.dumps({"file_path": "config.yml", "content": f"db:\n  password: {p}\n  pool: 5\n"}), True),
        ("k8s-env", lambda p: f"        env:\n          - name: DB_PASSWORD\n            value: \"{p}\"", False),
        ("ecs-json", lambda p: json.dumps({"environment": [{"name": "DB_PASSWORD", "value": p}]}), True),
        ("smtp", lambda p: f"SMTP_HOST=smtp.acme.dev\nSMTP_USER=mailer\nSMTP_PASS={p}", False),
        ("passphrase", lambda p: f'ssh_key_passphrase: "{p}"', False),
        ("powershell", lambda p: f'$env:ADMIN_PASSWORD = "{p}"', False),
        ("kwargs-literal", lambda p: f"client.login(username='ops', password='{p}')", False),
        ("diff", lambda p: f"-DB_PASSWORD=\n+DB_PASSWORD={p}", False),
        ("gha-yaml", lambda p: f"      env:\n        REDIS_PASSWORD: {p}\n      run: pytest", False),
        ("sql", lambda p: f"-- set up\nCREATE USER app WITH PASSWORD '{p}';", False),
    ]
    rows = []
    for context, make, is_json in templates:
        secret = password()
        rows.append(_row("password", context, make(secret), secret, is_json))
    return rows


def _named(rng: random.Random, rand: Callable[..., str], uuid: Callable[[], str]) -> list[Row]:
    rows: list[Row] = []
    specs: list[tuple[str, str, Callable[[], str]]] = [
        ("secret", "CLIENT_SECRET", lambda: rand(40)),
        ("secret", "JWT_SECRET", lambda: rand(48)),
        ("secret", "NEXTAUTH_SECRET", lambda: base64.b64encode(rng.randbytes(32)).decode()),
        ("secret", "SESSION_SECRET", lambda: rand(32, HEX)),
        ("secret", "webhook_secret", lambda: rand(32)),
        ("secret", "SECRET_KEY", lambda: rand(50, ALNUM + "!@#%^&*(-_=+)")),
        ("token", "AUTH_TOKEN", lambda: rand(40)),
        ("token", "refresh_token", lambda: rand(64, ALNUM + "-_")),
        ("token", "access_token", lambda: rand(48, ALNUM + "._-")),
        ("token", "API_TOKEN", lambda: rand(32, HEX)),
        ("api-key", "API_KEY", lambda: rand(32)),
        ("api-key", "apiKey", lambda: rand(40)),
        ("api-key", "MAPBOX_ACCESS_KEY", lambda: rand(40)),
        ("api-key", "LICENSE_KEY", lambda: "-".join(rand(5, string.ascii_uppercase + string.digits) for _ in range(5))),
        ("api-key", "ENCRYPTION_KEY", lambda: base64.b64encode(rng.randbytes(32)).decode()),
        ("private-key", "PRIVATE_KEY", lambda: "0x" + rand(64, HEX)),
        ("mistral-api-key", "MISTRAL_API_KEY", lambda: rand(32)),
        ("cohere-api-key", "COHERE_API_KEY", lambda: rand(40)),
        ("cohere-api-key", "CO_API_KEY", lambda: rand(40)),
        ("together-api-key", "TOGETHER_API_KEY", lambda: rand(64, HEX)),
        ("fireworks-api-key", "FIREWORKS_API_KEY", lambda: "fw_" + rand(24)),
        ("deepseek-api-key", "DEEPSEEK_KEY", lambda: rand(32)),
        ("azure-client-secret", "AZURE_CLIENT_SECRET", lambda: rand(40, ALNUM + "~._-")),
        ("azure-key", "AZURE_OPENAI_API_KEY", lambda: rand(32, HEX)),
        ("twilio-auth-token", "TWILIO_AUTH_TOKEN", lambda: rand(32, HEX)),
        ("heroku-api-key", "HEROKU_API_KEY", uuid),
        ("aws-secret-key", "AWS_SECRET_ACCESS_KEY", lambda: rand(40, B64)),
        ("aws-secret-key", "aws_secret_access_key", lambda: rand(40, B64)),
        ("github-token", "GITHUB_TOKEN", lambda: rand(40, HEX)),
        ("slack-token", "SLACK_SIGNING_SECRET", lambda: rand(32, HEX)),
    ]
    syntaxes: list[tuple[str, Callable[[str, str], str], bool]] = [
        ("env", lambda n, s: f"{n}={s}", False),
        ("export", lambda n, s: f"export {n}='{s}'", False),
        ("json", lambda n, s: json.dumps({n: s, "debug": False}), True),
        ("yaml", lambda n, s: f"config:\n  {n}: {s}\n  timeout: 30", False),
        ("python", lambda n, s: f'settings.{n} = "{s}"', False),
        ("json-tool-input", lambda n, s: json.dumps({"command": f"{n}=\"{s}\" ./run.sh --verbose"}), True),
        ("docker", lambda n, s: f"docker run -e {n}={s} acme/worker", False),
        ("toml", lambda n, s: f'{n} = "{s}"', False),
    ]
    for index, (family, name, make) in enumerate(specs):
        for context, build, is_json in rng.sample(syntaxes, 3 if index % 3 else 4):
            secret = make()
            rows.append(_row(family, context, build(name, secret), secret, is_json))
    extra: list[tuple[str, str, str, Callable[[str], str], bool]] = [
        ("aws-secret-key", "aws-cli", rand(40, B64), lambda s: f"aws configure set aws_secret_access_key {s} --profile prod", False),
        ("aws-secret-key", "aws-credentials", rand(40, B64), lambda s: f"[default]\naws_access_key_id = AKIA{rand(16, string.ascii_uppercase + '234567')}\naws_secret_access_key = {s}\nregion = us-east-1", False),
        ("aws-secret-key", "aws-csv", rand(40, B64), lambda s: f"User name,Access key ID,Secret access key\nci-bot,AKIA{rand(16, string.ascii_uppercase + '234567')},{s}", False),
        ("aws-secret-key", "sts-json", rand(40, B64), lambda s: json.dumps({"Credentials": {"AccessKeyId": "ASIA" + rand(16, string.ascii_uppercase + "234567"), "SecretAccessKey": s}}), True),
        ("npm-token", "npmrc-uuid", uuid(), lambda s: f"//registry.npmjs.org/:_authToken={s}\nalways-auth=true", False),
        ("gcp-service-account", "service-account-json", rand(40, HEX), lambda s: json.dumps({"type": "service_account", "project_id": "acme-prod", "private_key_id": s, "client_email": "ci@acme-prod.iam.gserviceaccount.com"}, indent=2), True),
        ("azure-storage-key", "connection-string", base64.b64encode(rng.randbytes(64)).decode(), lambda s: f'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={s};EndpointSuffix=core.windows.net"', False),
        ("azure-storage-key", "servicebus", base64.b64encode(rng.randbytes(32)).decode(), lambda s: f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={s}", False),
        ("heroku-api-key", "heroku-netrc", uuid(), lambda s: f"machine api.heroku.com\n  login ops@acme.dev\n  password {s}", False),
        ("twilio-auth-token", "twilio-client", rand(32, HEX), lambda s: f'client = Client("AC{rand(32, HEX)}", "{s}")', False),
    ]
    for family, context, secret, build_one, is_json in extra:
        rows.append(_row(family, context, build_one(secret), secret, is_json))
    return rows


def _urls(rng: random.Random, rand: Callable[..., str]) -> list[Row]:
    def pw() -> str:
        return rand(rng.randint(12, 20), ALNUM + "-_.~")

    url_templates: list[tuple[str, str, Callable[[str], str], bool]] = [
        ("url-credentials", "git-remote", lambda p: f"git remote set-url origin https://deploy:{p}@git.acme.dev/platform/api.git", False),
        ("url-credentials", "git-clone", lambda p: f"git clone https://oauth2:{p}@gitlab.acme.dev/group/repo.git", False),
        ("url-credentials", "pip-index", lambda p: f"pip install --index-url https://__token__:{p}@pypi.acme.dev/simple acme-sdk", False),
        ("url-credentials", "proxy", lambda p: f"export HTTPS_PROXY=http://proxyuser:{p}@proxy.corp.acme.dev:3128", False),
        ("url-credentials", "ftp", lambda p: f"lftp ftp://deploy:{p}@files.acme.dev/releases", False),
        ("url-credentials", "smtp-url", lambda p: f'EMAIL_URL="smtp://mailer:{p}@smtp.acme.dev:587"', False),
        ("url-credentials", "json", lambda p: json.dumps({"registry": f"https://ci:{p}@registry.acme.dev/v2/"}), True),
        ("db-credentials", "postgres-env", lambda p: f"DATABASE_URL=postgres://app:{p}@db.internal:5432/app", False),
        ("db-credentials", "postgresql-python", lambda p: f'engine = create_engine("postgresql+psycopg2://app:{p}@localhost/app")', False),
        ("db-credentials", "mysql", lambda p: f"mysql://root:{p}@127.0.0.1:3306/shop", False),
        ("db-credentials", "mongodb-srv", lambda p: f'MONGO_URI="mongodb+srv://svc:{p}@cluster0.x1y2z.mongodb.net/prod?retryWrites=true"', False),
        ("db-credentials", "mongodb", lambda p: f"mongosh mongodb://admin:{p}@mongo-0.mongo:27017/admin", False),
        ("db-credentials", "redis", lambda p: f"REDIS_URL=redis://:{p}@cache.internal:6379/0", False),
        ("db-credentials", "rediss", lambda p: f"celery -b rediss://default:{p}@red.acme.dev:6380/1 worker", False),
        ("db-credentials", "amqp", lambda p: f"BROKER_URL=amqp://guest:{p}@rabbit:5672//", False),
        ("db-credentials", "amqps-yaml", lambda p: f"broker:\n  url: amqps://svc:{p}@mq.acme.dev/vhost", False),
        ("db-credentials", "json-tool-input", lambda p: json.dumps({"command": f"psql \"postgresql://app:{p}@db:5432/app\" -c '\\\\dt'"}), True),
        ("db-credentials", "mssql", lambda p: f"mssql://sa:{p}@sql.acme.dev:1433/app", False),
        ("password", "jdbc-query", lambda p: f"jdbc:postgresql://db:5432/app?user=app&password={p}&ssl=true", False),
        ("query-token", "access-token", lambda p: f"GET https://api.acme.dev/v1/export?format=csv&access_token={p} 200", False),
        ("query-token", "token", lambda p: f"curl 'https://hooks.acme.dev/ingest?token={p}&source=ci'", False),
        ("query-token", "api-key", lambda p: f"https://api.weather.acme.dev/v2/forecast?q=Berlin&api_key={p}&units=metric", False),
        ("query-token", "apikey", lambda p: f"fetch(`https://api.acme.dev/search?apikey={p}&q=${{term}}`)", False),
        ("query-token", "websocket", lambda p: f"connecting to wss://stream.acme.dev/socket?auth={p}", False),
        ("query-token", "oauth-body", lambda p: f"grant_type=client_credentials&client_id=acme-cli&client_secret={p}", False),
    ]
    rows = [_row(family, context, make(secret), secret, is_json)
            for family, context, make, is_json in url_templates for secret in [pw()]]
    sas = rand(43, ALNUM) + "%2B" + rand(8) + "%3D"
    rows.append(_row("query-token", "azure-sas", f"https://acme.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&sig={sas}", sas))
    sig = rand(64, HEX)
    rows.append(_row("query-token", "s3-presigned", f"https://acme-exports.s3.amazonaws.com/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240501T120000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={sig}", sig))
    gsig = rand(128, HEX)
    rows.append(_row("query-token", "gcs-signed", f"https://storage.googleapis.com/acme/r.csv?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Expires=900&X-Goog-Signature={gsig}", gsig))
    tok = rand(36)
    rows.append(_row("url-credentials", "slack-webhook-url", f"curl -X POST -d '{{\"text\":\"done\"}}' https://hooks.slack.com/services/T{rand(8, string.ascii_uppercase + string.digits)}/B{rand(10, string.ascii_uppercase + string.digits)}/{tok[:24]}", tok[:24]))
    rows[-1]["family"] = "slack-webhook"
    dtok = rand(68, ALNUM + "-_")
    rows.append(_row("discord-webhook", "webhook", f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{rand(18, string.digits)}/{dtok}", dtok))
    ttok = f"{rand(10, string.digits)}:AA{rand(33, ALNUM + '-_')}"
    rows.append(_row("telegram-bot-token", "api-url", f"curl https://api.telegram.org/bot{ttok}/getUpdates", ttok))
    return rows


def _headers(rng: random.Random, rand: Callable[..., str], jwt: Callable[[], str]) -> list[Row]:
    rows: list[Row] = []
    for family, context, make, is_json in [
        ("bearer-token", "http-dump", lambda t: f"GET /v1/orders HTTP/1.1\nHost: api.acme.dev\nAuthorization: Bearer {t}\nAccept: */*", False),
        ("bearer-token", "json-headers", lambda t: json.dumps({"headers": {"Authorization": f"Bearer {t}", "Accept": "application/json"}}), True),
        ("bearer-token", "curl-lower", lambda t: f"curl -H 'authorization: bearer {t}' https://api.acme.dev/me", False),
        ("bearer-token", "python-headers", lambda t: f'headers = {{"Authorization": "Bearer {t}", "User-Agent": "acme/1.0"}}', False),
        ("bearer-token", "token-scheme", lambda t: f'curl -H "Authorization: token {t}" https://api.github.com/user', False),
        ("bearer-token", "log-bearer", lambda t: f"[http] sending request with Bearer {t} to /v2/items", False),
        ("api-key", "x-api-key", lambda t: f"curl https://api.acme.dev -H 'x-api-key: {t}' -H 'content-type: application/json'", False),
        ("token", "x-auth-token", lambda t: f"X-Auth-Token: {t}", False),
        ("token", "private-token", lambda t: f'curl --header "PRIVATE-TOKEN: {t}" https://gitlab.acme.dev/api/v4/projects', False),
    ]:
        secret = rand(40, ALNUM + "-_.")
        rows.append(_row(family, context, make(secret), secret, is_json))
    for context, make_pair in [
        ("basic-header", lambda u, p: f"Authorization: Basic {base64.b64encode(f'{u}:{p}'.encode()).decode()}"),
        ("basic-json", lambda u, p: json.dumps({"Authorization": "Basic " + base64.b64encode(f"{u}:{p}".encode()).decode()})),
    ]:
        user, pw = "svc-" + rand(4, string.ascii_lowercase), rand(16)
        text = make_pair(user, pw)
        secret = base64.b64encode(f"{user}:{pw}".encode()).decode()
        rows.append(_row("basic-auth", context, text, secret, context.endswith("json")))
    for context, make in [
        ("curl-u", lambda p: f"curl -u admin:{p} https://jenkins.acme.dev/api/json"),
        ("curl-user", lambda p: f"curl --user deploy:{p} -X POST https://nexus.acme.dev/upload"),
        ("requests-auth", lambda p: f'r = requests.get(url, auth=("admin", "{p}"), timeout=10)'),
        ("basic-auth-class", lambda p: f'session.auth = HTTPBasicAuth("ci", "{p}")'),
    ]:
        secret = rand(16, ALNUM + "!#%+")
        rows.append(_row("basic-auth", context, make(secret), secret))
    docker_auth = base64.b64encode(f"ci:{rand(20)}".encode()).decode()
    rows.append(_row("basic-auth", "docker-config", json.dumps({"auths": {"registry.acme.dev": {"auth": docker_auth}}}, indent=2), docker_auth, True))
    for context, make, is_json in [
        ("cookie-header", lambda t: f"Cookie: sessionid={t}; csrftoken={rand(32)}; theme=dark", False),
        ("set-cookie", lambda t: f"Set-Cookie: __Secure-session={t}; Path=/; Secure; HttpOnly; SameSite=Lax", False),
        ("curl-cookie", lambda t: f'curl --cookie "session={t}" https://app.acme.dev/admin', False),
        ("json-cookie", lambda t: json.dumps({"cookie": f"connect.sid=s%3A{t}"}), True),
        ("document-cookie", lambda t: f'document.cookie = "auth_token={t}; path=/";', False),
    ]:
        secret = rand(32, ALNUM + "-_.")
        rows.append(_row("cookie", context, make(secret), secret, is_json))
    for context in ("jwt-env", "jwt-header"):
        token = jwt()
        text = f"SUPABASE_ANON=…\nsession token {token}" if context == "jwt-env" else f"Authorization: Bearer {token}"
        rows.append(_row("jwt", context, text, token))
    return rows


def _pem_body(rng: random.Random, prefix: str, size: int) -> list[str]:
    raw = prefix + base64.b64encode(rng.randbytes(size)).decode()
    return textwrap.wrap(raw, 64)


def _keys(rng: random.Random, rand: Callable[..., str]) -> list[Row]:
    rows: list[Row] = []
    kinds = [("private-key", "RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA"), ("private-key", "EC PRIVATE KEY", "MHcCAQEEI"),
             ("private-key", "DSA PRIVATE KEY", "MIIBuwIBAAKBgQD"), ("private-key", "ENCRYPTED PRIVATE KEY", "MIIFHzBJBgkqhkiG9w0BBQ0w"),
             ("private-key", "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"),
             ("ssh-private-key", "OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
             ("pgp-private-key", "PGP PRIVATE KEY BLOCK", "lQdGBGRkb2sBEAC")]
    for family, label, prefix in kinds:
        lines = _pem_body(rng, prefix, 600)
        secret = lines[3]
        block = f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"
        rows.append(_row(family, "pem-file", f"$ cat ~/.ssh/id_deploy\n{block}\n$ chmod 600 ~/.ssh/id_deploy", secret))
        rows.append(_row(family, "pem-json-escaped", json.dumps({"file_path": "/tmp/key.pem", "content": block + "\n"}), secret, True))
    lines = _pem_body(rng, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC", 900)
    key = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----\n"
    account = {"type": "service_account", "project_id": "acme-prod", "private_key_id": rand(40, HEX),
               "private_key": key, "client_email": "deploy@acme-prod.iam.gserviceaccount.com"}
    rows.append(_row("private-key", "gcp-service-account", json.dumps(account, indent=2), lines[5], True))
    lines = _pem_body(rng, "MIIEowIBAAKCAQEA", 900)
    yaml_block = "tls.key: |\n" + "\n".join("    " + line for line in
                                           ["-----BEGIN RSA PRIVATE KEY-----", *lines, "-----END RSA PRIVATE KEY-----"])
    rows.append(_row("private-key", "yaml-indented", f"apiVersion: v1\nkind: Secret\nstringData:\n  {yaml_block}", lines[2]))
    lines = _pem_body(rng, "MIIEowIBAAKCAQEA", 900)
    python = 'KEY = """-----BEGIN RSA PRIVATE KEY-----\n' + "\n".join(lines) + '\n-----END RSA PRIVATE KEY-----"""'
    rows.append(_row("private-key", "python-triple-quoted", python, lines[7]))
    lines = _pem_body(rng, "MIIEowIBAAKCAQEA", 600)
    truncated = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines[:6]) + "\n(paste was cut off)"
    rows.append(_row("private-key", "truncated", truncated, lines[4]))
    body = [rand(64, ALNUM + "+/") for _ in range(6)]
    putty = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
             f"AAAAC3NzaC1lZDI1NTE5AAAAI{rand(20)}\n{rand(40)}\nPrivate-Lines: 1\n{body[0]}\n"
             f"Private-MAC: {rand(64, HEX)}")
    rows.append(_row("ssh-private-key", "putty", putty, body[0]))
    return rows
