"""Write the labelled redaction corpus: `positives.jsonl`, `negatives.jsonl`, `hidden.jsonl`.

    .venv/bin/python tests/corpus/redaction/generate.py      # rewrites the three files

Deterministic (one seeded RNG), synthetic only: every secret is a random string shaped like
the real format (prefix, length, alphabet); none was ever issued by a vendor. Checksummed
formats (GitHub, npm) get the right shape, not a valid checksum.

positives.jsonl  {"family", "context", "text", "secret", "json"}: `secret` is the exact
                 substring that must be gone after `redact`; `json` says `text` is a JSON
                 document that must still parse afterwards.
negatives.jsonl  {"family", "text"}: look-alikes that `redact` must return byte-identical.
hidden.jsonl     {"name", "input", "must_not_contain", "must_contain"} for `sanitize`; the
                 adversarial rows (cases_hidden_adv.py) also carry a `split`, tune or test.
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cases_hidden import hidden_cases  # noqa: E402
from cases_hidden_adv import adversarial_cases  # noqa: E402
from cases_negative import negative_cases  # noqa: E402

rng = random.Random(20250517)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
_AVOID = ("example", "xxxx", "****", "...", "abcdefgh", "12345678", "01234567", "your", "redact",
          "dummy", "here", "sample", "insert", "enter", "change", "replace", "holder", "test")


def rand(n: int, alphabet: str = ALNUM) -> str:
    """A random string that no placeholder filter could mistake for a placeholder."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        low = value.lower()
        if any(a in low for a in _AVOID):
            continue
        if alphabet in (ALNUM, B64, B64URL) and n >= 12 and not (
                any(c.isdigit() for c in value) and any(c.isupper() for c in value)
                and any(c.islower() for c in value)):
            continue
        return value


def password() -> str:
    words = ["Tr0ub4dor", "Falcon", "Quartz", "Maple", "Orbit", "Nimbus", "Cobalt", "Juniper"]
    return rng.choice(words) + rng.choice("!#%^*+=~") + rand(4, string.digits) + rand(3, string.ascii_letters)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt() -> str:
    header = b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": rand(10, string.digits), "name": rand(8, string.ascii_lowercase),
                                 "iat": rng.randint(1600000000, 1700000000)}).encode())
    return f"{header}.{payload}.{rand(43, B64URL)}"


def uuid() -> str:
    return f"{rand(8, HEX)}-{rand(4, HEX)}-4{rand(3, HEX)}-a{rand(3, HEX)}-{rand(12, HEX)}"


# --- token families: (family, generator, env name) -------------------------------------------
TOKENS: list[tuple[str, Callable[[], str], str]] = [
    ("aws-access-key", lambda: "AKIA" + rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "AWS_ACCESS_KEY_ID"),
    ("aws-access-key", lambda: "ASIA" + rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "AWS_ACCESS_KEY_ID"),
    ("aws-session-token", lambda: "IQoJb3JpZ2luX2Vj" + rand(180, B64), "AWS_SESSION_TOKEN"),
    ("github-token", lambda: rng.choice(["ghp_", "gho_", "ghu_", "ghr_"]) + rand(36), "GITHUB_TOKEN"),
    ("github-app-token", lambda: "ghs_" + rand(36), "GH_APP_TOKEN"),
    ("github-fine-grained-pat", lambda: "github_pat_" + rand(22) + "_" + rand(59), "GH_PAT"),
    ("gitlab-token", lambda: rng.choice(["glpat-", "glrt-", "gldt-"]) + rand(20, ALNUM + "_-"), "GITLAB_TOKEN"),
    ("slack-token", lambda: f"xoxb-{rand(11, string.digits)}-{rand(12, string.digits)}-{rand(24)}", "SLACK_BOT_TOKEN"),
    ("slack-token", lambda: f"xoxp-{rand(11, string.digits)}-{rand(11, string.digits)}-{rand(12, string.digits)}-{rand(32, HEX)}", "SLACK_USER_TOKEN"),
    ("stripe-key", lambda: rng.choice(["sk_live_", "rk_live_", "sk_test_"]) + rand(rng.choice([24, 99])), "STRIPE_SECRET_KEY"),
    ("stripe-webhook-secret", lambda: "whsec_" + rand(32), "STRIPE_WEBHOOK_SECRET"),
    ("openai-key", lambda: "sk-proj-" + rand(58, B64URL) + "T3BlbkFJ" + rand(58, B64URL), "OPENAI_API_KEY"),
    ("openai-key", lambda: "sk-" + rand(20) + "T3BlbkFJ" + rand(20), "OPENAI_API_KEY"),
    ("anthropic-key", lambda: "sk-ant-api03-" + rand(93, B64URL) + "AA", "ANTHROPIC_API_KEY"),
    ("anthropic-oauth-token", lambda: "sk-ant-oat01-" + rand(93, B64URL) + "AA", "CLAUDE_CODE_OAUTH_TOKEN"),
    ("openrouter-key", lambda: "sk-or-v1-" + rand(64, HEX), "OPENROUTER_API_KEY"),
    ("sk-key", lambda: "sk-" + rand(32, HEX), "DEEPSEEK_API_KEY"),
    ("google-api-key", lambda: "AIzaSy" + rand(33, B64URL), "GOOGLE_API_KEY"),
    ("google-oauth-secret", lambda: "GOCSPX-" + rand(28, B64URL), "GOOGLE_CLIENT_SECRET"),
    ("google-oauth-token", lambda: "ya29.a0" + rand(150, B64URL), "GOOGLE_ACCESS_TOKEN"),
    ("azure-client-secret", lambda: rand(3) + rand(1, string.digits) + "Q~" + rand(34, ALNUM + "_~.-"), "AZURE_CLIENT_SECRET"),
    ("twilio-api-key", lambda: "SK" + rand(32, HEX), "TWILIO_API_KEY"),
    ("twilio-account-sid", lambda: "AC" + rand(32, HEX), "TWILIO_ACCOUNT_SID"),
    ("sendgrid-key", lambda: "SG." + rand(22, B64URL) + "." + rand(43, B64URL), "SENDGRID_API_KEY"),
    ("npm-token", lambda: "npm_" + rand(36), "NPM_TOKEN"),
    ("pypi-token", lambda: "pypi-AgEIcHlwaS5vcmc" + rand(150, B64URL), "TWINE_PASSWORD"),
    ("huggingface-token", lambda: "hf_" + rand(34), "HF_TOKEN"),
    ("databricks-token", lambda: "dapi" + rand(32, HEX), "DATABRICKS_TOKEN"),
    ("discord-bot-token", lambda: rng.choice("MNO") + rand(23, B64URL) + "." + rand(6, B64URL) + "." + rand(27, B64URL), "DISCORD_BOT_TOKEN"),
    ("telegram-bot-token", lambda: rand(9, string.digits) + ":AA" + rand(33, B64URL), "TELEGRAM_BOT_TOKEN"),
    ("digitalocean-token", lambda: rng.choice(["dop_v1_", "doo_v1_"]) + rand(64, HEX), "DIGITALOCEAN_TOKEN"),
    ("heroku-api-key", lambda: "HRKU-AA" + rand(58, B64URL), "HEROKU_API_KEY"),
    ("shopify-token", lambda: rng.choice(["shpat_", "shpss_", "shpca_", "shppa_"]) + rand(32, HEX), "SHOPIFY_ACCESS_TOKEN"),
    ("groq-key", lambda: "gsk_" + rand(52), "GROQ_API_KEY"),
    ("replicate-token", lambda: "r8_" + rand(37), "REPLICATE_API_TOKEN"),
    ("perplexity-key", lambda: "pplx-" + rand(48), "PERPLEXITY_API_KEY"),
    ("xai-key", lambda: "xai-" + rand(80), "XAI_API_KEY"),
    ("jwt", jwt, "SUPABASE_SERVICE_ROLE_KEY"),
    ("vault-token", lambda: "hvs." + rand(90, B64URL), "VAULT_TOKEN"),
    ("docker-hub-token", lambda: "dckr_pat_" + rand(27, B64URL), "DOCKERHUB_TOKEN"),
    ("supabase-token", lambda: "sbp_" + rand(40, HEX), "SUPABASE_ACCESS_TOKEN"),
    ("langsmith-key", lambda: f"lsv2_pt_{rand(32, HEX)}_{rand(10, HEX)}", "LANGSMITH_API_KEY"),
    ("linear-key", lambda: "lin_api_" + rand(40), "LINEAR_API_KEY"),
    ("notion-token", lambda: "ntn_" + rand(46), "NOTION_TOKEN"),
    ("postman-key", lambda: f"PMAK-{rand(24, HEX)}-{rand(34, HEX)}", "POSTMAN_API_KEY"),
    ("atlassian-token", lambda: "ATATT3" + rand(186, B64URL), "JIRA_API_TOKEN"),
    ("grafana-token", lambda: f"glsa_{rand(32)}_{rand(8, HEX)}", "GRAFANA_SA_TOKEN"),
    ("sentry-token", lambda: "sntrys_" + rand(120, ALNUM), "SENTRY_AUTH_TOKEN"),
    ("newrelic-key", lambda: "NRAK-" + rand(27, string.ascii_uppercase + string.digits), "NEW_RELIC_API_KEY"),
    ("age-secret-key", lambda: "AGE-SECRET-KEY-1" + rand(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "SOPS_AGE_KEY"),
    ("tailscale-key", lambda: f"tskey-auth-{rand(12)}-{rand(32)}", "TS_AUTHKEY"),
    ("planetscale-token", lambda: "pscale_tkn_" + rand(43, ALNUM + "_"), "PLANETSCALE_TOKEN"),
    ("rubygems-token", lambda: "rubygems_" + rand(48, HEX), "GEM_HOST_API_KEY"),
]

# --- contexts: (name, builder(secret, env_name) -> (text, is_json)) ---------------------------
Context = Callable[[str, str], tuple[str, bool]]


def _j(obj: object) -> tuple[str, bool]:
    return json.dumps(obj), True


CONTEXTS: list[tuple[str, Context]] = [
    ("shell", lambda s, n: (f"$ export {n}={s}\n$ ./scripts/deploy.sh staging", False)),
    ("shell-quoted", lambda s, n: (f'export {n}="{s}"', False)),
    ("dotenv", lambda s, n: (f"# .env.production\nNODE_ENV=production\n{n}={s}\nPORT=3000\n", False)),
    ("json-tool-input", lambda s, n: _j({"command": f'export {n}="{s}" && npm run deploy', "description": "Deploy to staging"})),
    ("json-write-env", lambda s, n: _j({"file_path": "/srv/app/.env", "content": f"DEBUG=false\n{n}={s}\nLOG_LEVEL=info\n"})),
    ("yaml", lambda s, n: (f"services:\n  api:\n    environment:\n      {n}: {s}\n      LOG_LEVEL: debug", False)),
    ("python", lambda s, n: (f'import os\n\nos.environ["{n}"] = "{s}"\nclient = make_client()', False)),
    ("python-kwarg", lambda s, n: (f'client = Client(token="{s}", timeout=30)', False)),
    ("docker", lambda s, n: (f"docker run --rm -e {n}={s} -p 8080:8080 ghcr.io/acme/api:1.4.2", False)),
    ("curl", lambda s, n: (f'curl -sS -H "Authorization: Bearer {s}" https://api.acme.dev/v1/me | jq .', False)),
    ("log", lambda s, n: (f"2024-05-01T12:03:44.120Z DEBUG settings loaded {{'{n.lower()}': '{s}', 'region': 'eu-west-1'}}", False)),
    ("prose", lambda s, n: (f"here's my key: {s} can you check why the request still 401s?", False)),
    ("prose-inline-code", lambda s, n: (f"I set `{s}` as the token but the CLI says unauthorized.", False)),
    ("toml", lambda s, n: (f'[deploy]\nregion = "eu-central-1"\n{n.lower()} = "{s}"\n', False)),
    ("gha", lambda s, n: (f"      - name: Publish\n        run: ./publish.sh\n        env:\n          {n}: {s}", False)),
    ("markdown", lambda s, n: (f"Run this first:\n\n```bash\nexport {n}='{s}'\n```", False)),
    ("powershell", lambda s, n: (f'$env:{n} = "{s}"; npm start', False)),
    ("diff", lambda s, n: (f"@@ -3,2 +3,3 @@\n DEBUG=false\n+{n}={s}\n LOG_LEVEL=info", False)),
    ("json-config", lambda s, n: _j({"service": "billing", "settings": {n.lower(): s, "retries": 3}})),
    ("kubectl", lambda s, n: (f"kubectl create secret generic app-secrets --from-literal={n}={s} -n prod", False)),
]


def token_positives() -> list[dict[str, object]]:
    out = []
    for family, make, env in TOKENS:
        chosen = rng.sample(CONTEXTS, 4)
        for ctx_name, ctx in chosen:
            secret = make()
            text, is_json = ctx(secret, env)
            out.append({"family": family, "context": ctx_name, "text": text, "secret": secret, "json": is_json})
    return out


from cases_positive import context_positives  # noqa: E402
from cases_prose import prose_cases  # noqa: E402


def write(path: Path, rows: list[dict[str, object]]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    positives = token_positives() + context_positives(rng, rand, password, jwt, uuid)
    prose_positives, prose_negatives = prose_cases()
    positives += prose_positives
    for row in positives:
        text, secret = str(row["text"]), str(row["secret"])
        assert secret in text, row
        if row["json"]:
            json.loads(text)
    write(HERE / "positives.jsonl", positives)
    write(HERE / "negatives.jsonl", negative_cases(rng, rand, uuid) + prose_negatives)
    write(HERE / "hidden.jsonl", hidden_cases(rng, rand) + adversarial_cases())
    print(f"positives {len(positives)}, negatives written, hidden written", file=sys.stderr)


if __name__ == "__main__":
    main()
