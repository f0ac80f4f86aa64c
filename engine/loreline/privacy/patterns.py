"""The data behind `loreline.privacy.redact`: token formats, secret-like names, placeholder words.

Kept apart from the engine so the tables can be read (and extended) without reading the
scanning code. Nothing here runs at import time beyond compiling regexes.

Every regex has bounded quantifiers. Every family here is checked by the corpus under
`tests/corpus/redaction/`: a new format needs positives (and look-alike negatives) there.
"""

from __future__ import annotations

import re

MARKER_PREFIX = "[REDACTED:"

# --- vendor tokens -------------------------------------------------------------------------
# (family, regex). A named group `s` marks the secret part when only part of the match is
# secret (webhook URLs keep their host); otherwise the whole match is replaced. Order
# matters within one position: more specific shapes come first.
_B = r"(?![A-Za-z0-9])"  # right boundary for alphanumeric bodies
_BX = r"(?![A-Za-z0-9_-])"  # right boundary for base64url bodies
TOKEN_FAMILIES: tuple[tuple[str, str], ...] = (
    ("aws-access-key", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}" + _B),
    ("aws-session-token", r"(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/]{80,4000}={0,2}"),
    ("github-token", r"gh[opur]_[A-Za-z0-9]{16,251}" + _B),  # 16+: cut short in a transcript
    ("github-app-token", r"ghs_[A-Za-z0-9]{16,251}" + _B),
    ("github-fine-grained-pat", r"github_pat_[A-Za-z0-9_]{16,251}" + _BX),
    ("gitlab-token", r"(?:gl(?:pat|rt|dt|ptt|cbt|ft|imt|agent|oas|soat)-[A-Za-z0-9_-]{20,300}"
                     r"(?:\.[0-9a-z]{2,12})?|GR1348941[A-Za-z0-9_-]{20,40})" + _BX),
    ("slack-token", r"(?:xox[abposre]-(?=[A-Za-z-]{0,40}\d)[A-Za-z0-9-]{10,250}"
                    r"|xapp-\d-[A-Za-z0-9]{6,40}-\d{1,20}-[A-Za-z0-9]{10,100})" + _BX),
    ("slack-webhook", r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
                      r"(?P<s>[A-Za-z0-9_/+-]{20,200})"),
    ("stripe-key", r"[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}" + _B),
    ("stripe-webhook-secret", r"whsec_[A-Za-z0-9+/]{24,100}={0,2}"),
    ("anthropic-oauth-token", r"sk-ant-o[a-z]t\d\d-[A-Za-z0-9_-]{8,400}" + _BX),
    ("anthropic-key", r"sk-ant-[a-z]{2,12}\d\d-[A-Za-z0-9_-]{8,400}" + _BX),
    ("openrouter-key", r"sk-or-v1-[0-9a-f]{64}" + _B),
    ("openai-key", r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,400}"
                   r"|[A-Za-z0-9_-]{0,200}T3BlbkFJ[A-Za-z0-9_-]{10,200})" + _BX),
    ("sk-key", r"sk-[A-Za-z0-9]{32,200}" + _BX),
    ("google-api-key", r"AIza[A-Za-z0-9_-]{35}" + _BX),
    ("google-oauth-secret", r"GOCSPX-[A-Za-z0-9_-]{24,40}" + _BX),
    ("google-oauth-token", r"(?:ya29\.[A-Za-z0-9_.-]{20,2000}|1//0[A-Za-z0-9_-]{30,500})" + _BX),
    ("azure-client-secret", r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"),
    ("twilio-api-key", r"SK[0-9a-fA-F]{32}" + _B),
    ("twilio-account-sid", r"AC[0-9a-f]{32}" + _B),
    ("sendgrid-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _BX),
    ("npm-token", r"npm_[A-Za-z0-9]{36}" + _B),
    ("pypi-token", r"pypi-AgE[IN][A-Za-z0-9_-]{50,1000}"),
    ("huggingface-token", r"(?:hf_|api_org_)[A-Za-z0-9]{30,40}" + _B),
    ("databricks-token", r"dapi[0-9a-f]{32}(?:-\d)?" + _B),
    ("discord-bot-token", r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}" + _BX),
    ("discord-webhook", r"(?:https?://)?(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
                        r"(?P<s>\d{15,22}/[A-Za-z0-9_-]{50,80})"),
    ("telegram-bot-token", r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{31,35}" + _BX),
    ("digitalocean-token", r"do[opr]_v1_[0-9a-f]{64}" + _B),
    ("heroku-api-key", r"HRKU-AA[A-Za-z0-9_-]{58}" + _BX),
    ("shopify-token", r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}" + _B),
    ("groq-key", r"gsk_[A-Za-z0-9]{48,56}" + _B),
    ("replicate-token", r"r8_[A-Za-z0-9]{30,40}" + _B),
    ("perplexity-key", r"pplx-[A-Za-z0-9]{40,60}" + _B),
    ("xai-key", r"xai-[A-Za-z0-9]{60,100}" + _B),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,8000}(?:\.[A-Za-z0-9_-]{0,2000})?"),
    ("vault-token", r"hv[sb]\.[A-Za-z0-9_-]{24,250}" + _BX),
    ("docker-hub-token", r"dckr_pat_[A-Za-z0-9_-]{27,40}" + _BX),
    ("supabase-token", r"sbp_[0-9a-f]{40}" + _B),
    ("langsmith-key", r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}" + _B),
    ("linear-key", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _B),
    ("notion-token", r"ntn_[A-Za-z0-9]{40,50}" + _B),
    ("postman-key", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}" + _B),
    ("atlassian-token", r"ATATT3[A-Za-z0-9_=-]{150,250}"),
    ("grafana-token", r"(?:glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})" + _B),
    ("sentry-token", r"sntry[su]_[A-Za-z0-9+/=_]{60,300}"),
    ("newrelic-key", r"NRAK-[A-Z0-9]{27}" + _B),
    ("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}" + _B),
    ("tailscale-key", r"tskey-[a-z]{3,10}-[A-Za-z0-9]{6,40}-[A-Za-z0-9]{16,80}" + _B),
    ("planetscale-token", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}" + _BX),
    ("rubygems-token", r"rubygems_[0-9a-f]{48}" + _B),
    ("sonar-token", r"sq[pau]_[0-9a-fA-F]{40}" + _B),
    ("bitbucket-app-password", r"ATBB[A-Za-z0-9_=.-]{24,}" + _BX),
    ("sourcegraph-token", r"sgp_(?:local_|[0-9a-f]{16}_)?[0-9a-fA-F]{40}" + _B),
    ("square-token", r"(?:sq0csp-[A-Za-z0-9_-]{43}|sq0atp-[A-Za-z0-9_-]{22}|EAAA[A-Za-z0-9_-]{60})" + _BX),
    ("facebook-token", r"EAA[MC][A-Za-z0-9]{60,400}" + _B),
    ("fly-token", r"fm[12][ar]?_[A-Za-z0-9+/=_-]{40,2000}"),
    ("onepassword-token", r"ops_eyJ[A-Za-z0-9+/=_-]{40,4000}"),
    ("azure-devops-pat", r"[A-Za-z0-9]{52}JQQJ99[A-Za-z0-9]{18}AZDO[A-Za-z0-9]{4}" + _B),
    ("alchemy-key", r"alcht_[A-Za-z0-9]{30}" + _B),
)

# A token may start after a non-word character or right after a JSON escape (`\n`, `\t`).
_LEFT = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrt])|(?<=/bot))"


def _combine() -> tuple[re.Pattern[str], dict[str, str]]:
    parts, names = [], {}
    for index, (family, source) in enumerate(TOKEN_FAMILIES):
        names[f"t{index}"] = family
        parts.append(f"(?P<t{index}>{source.replace('(?P<s>', f'(?P<s{index}>')})")
    return re.compile(_LEFT + "(?:" + "|".join(parts) + ")"), names


TOKEN_RE, TOKEN_GROUPS = _combine()

# Runs of [A-Za-z0-9_~-] at least this long are where prefixed tokens live.
RUN_MIN = 20
# A long run that starts with one of these is scanned for tokens.
RUN_PREFIXES: tuple[str, ...] = (
    "AKIA", "ASIA", "ABIA", "ACCA", "A3T", "IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE",
    "ghp_", "gho_", "ghu_", "ghr_", "ghs_", "github_pat_", "glpat-", "glrt-", "gldt-", "glptt-",
    "glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "glsa_", "glc_", "GR1348941",
    "xox", "xapp-", "sk_", "rk_", "whsec_", "sk-", "AIza", "GOCSPX-", "npm_", "pypi-", "hf_",
    "api_org_", "dapi", "dop_v1_", "doo_v1_", "dor_v1_", "HRKU-", "shpat_", "shpss_", "shpca_",
    "shppa_", "gsk_", "r8_", "pplx-", "xai-", "eyJ", "dckr_pat_", "sbp_", "lsv2_", "lin_api_",
    "lin_oauth_", "ntn_", "PMAK-", "ATATT3", "sntrys_", "sntryu_", "NRAK-", "AGE-SECRET-KEY-",
    "tskey-", "pscale_", "rubygems_", "sqp_", "squ_", "sqa_", "sgp_", "sq0csp-", "sq0atp-", "EAAA",
    "EAAM", "EAAC", "ATBB", "ops_eyJ", "alcht_", "fm1_", "fm2_", "fm1a_", "fm1r_", "fm2a_", "fm2r_",
)
RUN_PREFIX2 = frozenset(prefix[:2] for prefix in RUN_PREFIXES)
# ... or whose text just before it ends with one of these (dotted or slashed prefixes).
RUN_PRECEDERS: tuple[str, ...] = ("SG.", "ya29.", "hvs.", "hvb.", "1//")

# --- names that hold secrets ---------------------------------------------------------------
# words that make a bare `key`/`token`/`secret` a secret in prose: "API key: ..."
PROSE_QUALIFIERS = frozenset("api access secret private bot auth app deploy personal refresh".split())
# segments (name split at _ . - and camelCase) that qualify a following `key`
KEY_QUALIFIERS = frozenset(
    "api access secret private priv client master account auth service signing sign encryption "
    "encrypt enc app application license licence admin session shared sharedaccess storage "
    "subscription webhook deploy consumer developer dev root cloud bot mistral cohere together "
    "fireworks deepseek openai anthropic groq stripe google gemini azure heroku sendgrid mailgun "
    "twilio replicate perplexity xai grok openrouter huggingface hf pinecone algolia resend "
    "postmark brevo mapbox maps firebase supabase notion linear sentry datadog dd segment "
    "posthog mixpanel amplitude elastic voyage jina serper tavily exa langsmith langchain "
    "weaviate qdrant cloudflare cf vercel netlify fly render railway".split()
)
# segments right after the keyword that turn a name into metadata about a secret
AFTER_DENY = frozenset(
    "id ids name names size length len type types file files path paths dir url uri urls "
    "endpoint endpoints count counts limit limits budget usage expiry expires expiration "
    "expired ttl lifetime age index idx field fields column label labels placeholder prompt "
    "hint policy policies rules rule regex pattern min max strength reset changed required "
    "visible visibility mode provider providers manager store storage version versions arn "
    "ref refs format algorithm algo alias pair ring board word words fingerprint prefix "
    "spec rotation env var vars location loc header headers param params method scheme "
    "flow state enabled disabled cost price estimate ratio rate less through filter number "
    "num hash_algorithm backend engine mount server service domain callback redirect "
    "duration timeout interval kind class cache map source schema ui input output".split()
)
# segments right before the keyword that make it something else
BEFORE_DENY = frozenset(
    "max min num total input output prompt completion cache page next prev previous csrf xsrf "
    "public publishable primary foreign sort partition idempotency hash dict map row unique "
    "composite lookup index lock hot short keyboard no reasoning thinking n count sub "
    "mono nonce entity gpg pgp".split()
)
# whole (lower-cased, separator-free) names that are never secrets
NAME_DENY = frozenset(
    "tokens tokenizer tokenize tokenized tokenizers tokenization keys keyword keywords keyring "
    "keystore keyspace keyframe keyframes keypress keydown keyup keycode keymap keybinding "
    "keybindings keychain monkey turkey hotkey passed passes passing bypass compass passenger "
    "passthrough author authors authority authorities authored authenticate authenticated "
    "authentication authenticator authorize authorized authorization_url authz secrets "
    "secretary password_less passwordless cookies cookiejar keyof".split()
)

# vendor words in a name → the family of a secret assigned to it
VENDOR_FAMILIES: dict[str, str] = {
    "mistral": "mistral-api-key", "cohere": "cohere-api-key", "co": "cohere-api-key",
    "together": "together-api-key", "fireworks": "fireworks-api-key",
    "deepseek": "deepseek-api-key", "anthropic": "anthropic-key", "claude": "anthropic-key",
    "openai": "openai-key", "groq": "groq-key", "replicate": "replicate-token",
    "perplexity": "perplexity-key", "pplx": "perplexity-key", "xai": "xai-key", "grok": "xai-key",
    "openrouter": "openrouter-key", "gemini": "google-api-key", "google": "google-api-key",
    "stripe": "stripe-key", "sendgrid": "sendgrid-key", "slack": "slack-token",
    "github": "github-token", "gh": "github-token", "gitlab": "gitlab-token",
    "npm": "npm-token", "pypi": "pypi-token", "twine": "pypi-token", "hf": "huggingface-token",
    "huggingface": "huggingface-token", "databricks": "databricks-token",
    "discord": "discord-bot-token", "telegram": "telegram-bot-token",
    "digitalocean": "digitalocean-token", "heroku": "heroku-api-key", "shopify": "shopify-token",
    "twilio": "twilio-auth-token", "azure": "azure-client-secret", "aws": "aws-secret-key",
    "vault": "vault-token",
}

# --- values that are not secrets -----------------------------------------------------------
# lower-cased values that are types, literals or the name itself, never a secret
STOP_VALUES = frozenset(
    "str string int integer bool boolean bytes any none null nil undefined true false yes no "
    "on off optional secretstr secretbytes object number text required hidden masked "
    "encrypted password passwd pass pwd secret token key apikey api_key api-key "
    "your_password yourpassword changeme change_me change-me changeit replace_me replaceme "
    "placeholder redacted dummy todo tbd fixme sample example empty unset default "
    "env environment string[] str[] char varchar blob uuid include omit same-origin bearer basic "
    "oauth jwt".split()
)
# substrings (checked on the lower-cased value) that mark a placeholder
PLACEHOLDER_PARTS: tuple[str, ...] = (
    "example", "your_", "your-", "yourkey", "yourtoken", "yoursecret", "<your", "_here",
    "-here", "xxxx", "****", "...", "\u2026", "redacted", "changeme", "change_me", "replace_me",
    "replace-me", "placeholder", "dummy", "insert_", "insert-", "enter_", "enter-",
    "abcdefgh", "12345678", "01234567", "<redacted", "[redacted", "[base64 blob", "[private]",
    "[instruction-override", "fake",
)
# placeholders beyond the English `your_…`: "your password/key" in other languages (`sua_senha`,
# `tu-clave`, `votre_mot_de_passe`), a `change me` (`PleaseChangeMe`, `change-me-too`), a secret's
# name written as one word (`secretpassword`, `mypassword`), a form marker (hydra's `^PASS^`)
PLACEHOLDER_RE = re.compile(
    r"(?:^|[^a-z])(?:sua|seu|tu|su|votre|ton|dein|deine|ihr|tuo|tua)[-_](?:senha|contrase|clave|chave|password|"
    r"passwort|mot|cl[eé]|key|token|secret|pass|usuario|usu[aá]rio|user)|(?:please)?change[-_]?(?:me|it)\b"
    r"|^(?:my|secret|new|old|some|strong|your)[-_]?(?:password|passwd|pass|pwd)$|\^[a-z]+\^"
    r"|^(?:mot[-_]?de[-_]?passe|contrase[ñn]a|senha|passwort|kennwort|wachtwoord|parola|has[lł]o|пароль|salasana)$"
)
# value starts that are references or templates, not literals (`$$(...)`: a Makefile's `$(...)`)
REFERENCE_START = re.compile(
    r"""![A-Za-z_]+$|\\?\$\$?(?:[{(]|[A-Za-z_]|\d+$)|\{\{|\{[A-Za-z_][\w.]*\}|%[A-Za-z_(]|@[A-Za-z_]+@|<[^>]{0,60}>$"""
    r"""|(?:os\.)?(?:environ|getenv)\b|process\.env\b|ENV\[|env\(|secrets\.|vars\.""",
)
# a code reference: identifier, dotted path, maybe a call or subscript after it
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
PATH_LIKE = re.compile(r"(?:~|\.{1,2}|[A-Za-z]:)?[/\\](?:[\w.@ -]+[/\\]?){0,40}")

DB_SCHEMES = frozenset(
    "postgres postgresql mysql mariadb mongodb mongodb+srv redis rediss amqp amqps mssql "
    "sqlserver oracle cockroachdb clickhouse snowflake db2 neo4j bolt couchdb cassandra "
    "memcached influxdb nats kafka".split()
)

# --- scanners over the lower-cased ASCII bytes (one byte per character) -------------------
# Every scanner starts with a literal, so `re` skips ahead fast; what may follow a keyword is
# checked inside the regex, so only plausible names reach Python: the rest of the name, a
# closing quote or bracket, then an operator, a `name`/`value` pair, a quoted or digit-bearing
# value after a space, or "is <value>".
_TAIL = (
    rb"[a-z0-9_.\-]{0,48}+(?:\\?[\"'`])?\]?[ \t]{0,16}+(?:[=:>]|!==?|\?=|(?<=auth)\("
    rb"|(?:\\?[\"'])?[ \t]{0,8},[ \t]{0,8}\\?[\"']value|(?:\r?\n|\\n)[ \t]{0,16}(?:-[ \t]+)?value"
    rb"|(?<=[\"'])[ \t]{0,8},[ \t]{0,8}\\?[\"']"  # set("API_KEY", "value"): a quoted name, a comma, a quoted value
    rb"|(?<=[ \t])(?:(?:is|was)[ \t]{1,8}(?:set to[ \t]{1,8})?)?(?:\\?[\"'`]|(?=[^\s]{0,80}?[0-9!#$%^&*+=/~@])))"
)
# "the key for staging: <value>": a key word, `for`/`to`/`of` and a few words, then a colon
_FOR_COLON = rb"|[ \t](?:for|to|of)[ \t][^\n:=\\\"'`]{1,48}:[ \t]{0,4}\S"
KEYWORD_RES: tuple[re.Pattern[bytes], ...] = (
    # pass, passwd, password, passphrase, pwd; "password for the admin panel: <value>"; and a
    # bare `-p` short flag (`mysql -pX`, `sshpass -p X`), told apart in Python by its length
    re.compile(rb"p(?:(?:ass|wd)(?:" + _TAIL + rb"|(?<=pass)(?:word|phrase)s?[ \t(][^\n:=\\\"'`]{1,48}:[ \t]{0,4}\S)"
               rb"|(?<=[ \t]-p)(?=[^\s-]|[ \t]+[^\s-]))"),
    # token, cookie, key; `key-----` (a PEM line) and `key-file-` (PuTTY) are flags, not names
    re.compile(rb"k(?:ey(?: block)?-----|ey-file-|(?<=tok)en(?:" + _TAIL + _FOR_COLON + rb")|(?<=cook)ie" + _TAIL
               + rb"|ey(?:" + _TAIL + _FOR_COLON + rb"))"),
    re.compile(rb"cret(?<=secret)(?:" + _TAIL + _FOR_COLON + rb")"),  # `cret`: rarer than `secret`, a faster scan
    re.compile(rb"auth" + _TAIL),
)
NAME_CHARS_REV = re.compile(rb"[a-z0-9_.\-]{0,64}")  # a name, read backwards from its keyword
URL_GATE_RE = re.compile(rb"://")
# commands whose short flag `-p` takes a password (`-p <db>` for mysql prompts instead)
SHORT_FLAG_COMMANDS = ("mysql", "mariadb", "mysqldump", "mysqladmin", "sshpass", "docker login",
                       "podman login", "nerdctl login")
SIG_GATE_RE = re.compile(rb"sig")
CURL_GATE_RE = re.compile(rb"curl")
SIG_RE = re.compile(rb"sig(?:nature)?=")  # literal first: the parameter name is checked after
SIG_PARAMS = frozenset([b"sig", b"signature", b"x-amz-signature", b"x-goog-signature"])
CURL_USER_RE = re.compile(rb"-u(?:ser)?[ \t=]+")

# --- scanners over the original text -------------------------------------------------------
URL_CRED_RE = re.compile(
    r"""://(?P<user>[^\s:/?#@"'<>\\\[\]{}]{0,128}):(?P<pw>[^\s/?#@"'<>\\]{1,256})@(?=[A-Za-z0-9\[_-])"""
)
PEM_BEGIN_RE = re.compile(r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,40}?)PRIVATE KEY(?: BLOCK)?-----")
PEM_END_RE = re.compile(r"-----END [A-Z0-9 ]{0,40}?PRIVATE KEY(?: BLOCK)?-----")
PEM_BODY_RE = re.compile(r"(?:[ \t]*(?:\\r|\\n|\r?\n)?[ \t]*[A-Za-z0-9+/=]{1,100}){0,400}")
B64_CHAR_RE = re.compile(r"[A-Za-z0-9+/]")
AWS_SECRET_NEAR_RE = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
HEX32_NEAR_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])")
