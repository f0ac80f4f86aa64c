"""The command rules: where a secret sits on a command line, by flag, by command, by form.

`scan_commands` is what `redact` runs on the lines that read as commands (every line, for
`privacy.commands.redact_command`). The forms it knows are listed in `privacy.commands`; the
positional ones and literals fed to stdin are in `privacy.command_positional`, what makes a
found value a secret at all in `privacy.command_values`.

Cost: `redact` calls `scan_commands` only when one bytes regex (`_GATE_SOURCE`, literal-led)
finds a trigger; only the lines holding a trigger are split into words; each command's words
are looked at a bounded number of times (what they say is worked out once, `_Facts`), so a
line costs time linear in its length. Patterns compile on first use.
"""

from __future__ import annotations

import re

from .command_positional import positional, stdin_literal
from .command_values import add, pattern, user_secret, value_word
from .context import key_shaped, looks_random
from .shellwords import Span, Word, basename, lazy_patterns, segments, unquote, words

_USER_FLAGS = frozenset("-u -U --user --username -l --login -D /u /U --user1 --user2 -login".split())
_PASSWORD_SHORT = frozenset("-p -P -w /p /P".split())
# command (basename, lower case) -> flags whose next word (or glued rest, for `*`) is a secret
SECRET_FLAGS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("sshpass",), ("-p",)),
    **dict.fromkeys(("redis-cli", "valkey-cli", "keydb-cli", "redis-benchmark"), ("-a", "--pass")),
    **dict.fromkeys(("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd",
                     "ldapcompare", "ldapmodrdn"), ("-w",)),
    **dict.fromkeys(("stegsnow", "olevba", "airdecap-ng", "mupdf", "ffsend", "lsar", "openttd", "unar"), ("-p",)),
    **dict.fromkeys(("zip", "unzip", "zipcloak", "sqlcmd", "bcp"), ("-P",)),
    **dict.fromkeys(("sic", "cryptcat", "ss-local", "ss-server", "ss-redir"), ("-k",)),
    **dict.fromkeys(("pdfinfo", "pdffonts", "pdfdetach", "pdftotext", "pdftoppm", "pdfimages", "pdftohtml",
                     "pdftocairo", "pdfseparate", "pdfsig", "pdfattach"), ("-upw", "-opw")),
    **dict.fromkeys(("snmpwalk", "snmpget", "snmpset", "snmpbulkwalk", "snmpgetnext", "snmptrap"), ("-A", "-X")),
    **dict.fromkeys(("mysql", "mysqldump", "mysqladmin", "mysqlcheck", "mysqlimport", "mysqlshow", "mysqlslap",
                     "mariadb", "mariadb-dump", "mariadb-admin"), ("-p*",)),
    **dict.fromkeys(("7z", "7za", "7zr"), ("-p*",)),
    **dict.fromkeys(("rar", "unrar", "winrar"), ("-p*", "-hp*")),
    **dict.fromkeys(("zpaq",), ("-k*",)),
    **dict.fromkeys(("choco", "nuget"), ("-k", "-ApiKey", "-apikey")),
    **dict.fromkeys(("plink", "pscp", "psftp", "putty", "kitty", "klink", "plink.exe", "pscp.exe", "putty.exe"),
                    ("-pw",)),
    **dict.fromkeys(("openssl",), ("-k",)),
}
# commands whose `--password` / `-W` asks for the password and takes no value
_PROMPTING = frozenset("psql pg_dump pg_dumpall pg_restore pg_basebackup createdb dropdb createuser dropuser "
                       "vacuumdb reindexdb clusterdb pgbench".split())
# flags a `<tool> [auth|registry] login` command takes a secret with
_LOGIN_FLAGS = frozenset("-p -t -k --password --token --api-key --apikey".split())
_CREDENTIAL_FLAGS = frozenset("-C --credential --credentials --creds --auth -auth -a --basic-auth -basic-auth "
                              "--http-auth --proxy-user".split())
_NOT_VALUE_SUFFIXES = ("-stdin", "-file", "-path", "-env", "-id", "-name", "-url", "-length", "-prompt", "-dir",
                       "-command", "-cmd", "-helper", "-store", "-type", "-ttl", "-expiry", "-hash")
# flags that take an NT hash in place of a password (`evil-winrm -u user -H <hash>`, `-hashes LM:NT`)
_HASH_FLAGS = frozenset("-hashes --hashes -nthash --nthash --nt-hash -H --hash".split())
_BOOLEAN_PREFIXES = ("--with-", "--no-", "--show-", "--print-", "--generate-", "--rotate-", "--revoke-",
                     "--skip-", "--use-", "--ask-", "--prompt-", "--allow-", "--require-", "--reset-")
_SECRET_FAMILIES = frozenset(["password", "secret", "token", "api-key", "auth-token", "credentials"])
# a secret manager's flags that name a secret rather than give one
_SECRET_NAME_FLAGS = frozenset("--secret --secret-id --secret-name --name --id".split())
# flags that name who a secret belongs to (besides the user flags): a generated value beside one is its secret
_IDENTITY_FLAGS = frozenset("--client-id --app-id --application-id --api-id --key-id --access-key-id --access-key "
                            "--consumer-key --account-id".split())
# subcommand words of a login or a credential store (`security create-keychain -p X`, `tool unlock -p X`)
_STORE_WORDS = ("keychain", "password", "passwd", "passphrase")
_PREFIX_WORDS = frozenset("$ # > % sudo time exec nohup env".split())

_pattern = lazy_patterns({
    "impacket": r"""(?:[\w.-]{1,64}[/\\]{1,2})?[\w.$-]{1,64}:(?P<pw>[^\s@:'"/]{1,128})@(?=[\w.\[-])""",
    "impacket_bare": r"""[A-Za-z][\w.-]{0,63}/[\w.$-]{1,64}:(?P<pw>[^\s@'"/]{1,128})""",
    "name_value": r"(?P<name>[A-Za-z_][\w.-]{0,64}(?:\[\d{1,3}\])?)=(?P<value>[^\s]{1,4096})",
    "long_flag": r"(?P<flag>--?[A-Za-z][\w-]{2,64})(?:=(?P<value>.{0,4096}))?",
    "command_word": r"[A-Za-z0-9_./\\~-]{1,64}",
    "nt_hash": r"(?:[0-9A-Fa-f]{32})?:?(?P<nt>[0-9A-Fa-f]{32})",
    "impacket_quoted": r"""(?:[\w.-]{1,64}[/\\]{1,2})?[\w.$-]{1,64}:(?P<q>['"])(?P<pw>[^'"]{1,128})(?P=q)@(?=[\w.\[-])""",
    # a secret-named reference or placeholder word (`$password`, `${PASS}`, `/p:password`): the
    # word after it is the next argument, not its value
    "named_ref": r"""(?:/\w{1,12}:|--?[\w-]{1,30}=)?['"]?(?:\$\{?|%)[\w.]{0,30}(?:pass|pwd|secret|token)\w{0,20}\}?%?['"]?"""
                 r"""|/\w{1,12}:(?:password|passwd|pass|secret|token)""",
    "secret_suffix": r"(?:^|[_.-])(?:ssh)?(?:pass|passwd|pwd)$",
    "not_secret_name": r"(?:user(?:name)?s?|names?|ids?|emails?|hosts?|databases?|ports?)(?:\[\d{1,3}\])?$",
})
_compiled_bytes: dict[str, re.Pattern[bytes]] = {}

# one scan of the lower-cased bytes: the flags and words that can carry a secret on a command line
# a flag that can carry a secret (` -p x`, ` -pX`, ` -w x`, ` --db-password`, ` -upw`): its literal ` -` lets `re` skip ahead
# in C; `@`, `pass:`, `/p:` and `<<<` are looked for apart, only when present
_GATE_SOURCE = (rb" -(?:-?[a-z0-9-]{0,30}?(?:pass|pw|token|secret|key|auth|cred)|[pwakxtb](?:[ \t]+[^\s-]|[^\s=-]{3})"
                rb"|hp[^\s]|[uo]pw[ \t])")


def scan_commands(text: str, low: bytes, spans: list[Span], whole: bool = False) -> list[tuple[int, int]]:
    """Append the spans of secrets on the command lines in `text`; return the ranges known
    to hold no secret (the word after a flag that takes none, a redirection, a BuildKit mount
    spec, the database `mysql -p db` names), which overrule a guess of the general scans.
    With `whole`, every line is a command (the caller knows); otherwise only lines that read as one."""
    vetoes: list[tuple[int, int]] = []
    if whole:
        start = 0
        while start <= len(text):
            end = text.find("\n", start)
            end = len(text) if end == -1 else end
            _scan_line(text, start, end, spans, vetoes)
            start = end + 1
        return vetoes
    # the literals every form needs, each behind a one-byte test (`memchr`, far cheaper than a
    # search for a longer literal or the gate's pattern): most text holds none of them
    dash = b"-" in low and b" -" in low
    at_sign = b"@" in low
    if not (dash or at_sign or (b":" in low and (b"pass:" in low or b"/p:" in low))
            or (b"<" in low and b"<<<" in low)):
        return vetoes
    hits: list[int] = []
    if dash:  # the gate's pattern starts with ` -`
        gate = _compiled_bytes.get("gate")
        if gate is None:
            gate = _compiled_bytes["gate"] = re.compile(_GATE_SOURCE)
        hits = [m.start() for m in gate.finditer(low)]
    if at_sign:  # `user:secret@host`, `DOMAIN\\user%secret@host`
        at = _compiled_bytes.get("at")
        if at is None:
            at = _compiled_bytes["at"] = re.compile(rb"[%:][^\s@:/'\"]{1,128}@[a-z0-9\[]")
        hits += [m.start() for m in at.finditer(low)]
    for literal in (b"pass:", b"/p:", b"<<<"):
        index = low.find(literal)
        while index != -1:
            hits.append(index)
            index = low.find(literal, index + 1)
    done = -1
    for hit in sorted(hits):
        if hit < done:
            continue
        start = text.rfind("\n", 0, hit) + 1
        end = text.find("\n", hit)
        end = len(text) if end == -1 else end
        done = end
        if _reads_as_command(text, start, end):
            _scan_line(text, start, end, spans, vetoes)
    return vetoes


def _reads_as_command(text: str, start: int, end: int) -> bool:
    """A line that starts like a shell command: a prompt, a `RUN` step, a command word then
    arguments (`tool -x`, `tool sub --flag`, `NAME=value tool`)."""
    line = text[start:end].lstrip(" \t>*-`")
    if line.startswith(("$ ", "# ", "RUN ", "sh ", "[root@", "PS ", "C:\\")):
        return True
    first = line.split(None, 1)
    if not first or len(first) < 2:
        return False
    word = first[0]
    if "=" in word and word.split("=", 1)[0].isupper():
        return True
    return bool(_pattern("command_word").fullmatch(word)) and word[0] not in ".-" and (
        " -" in first[1] or "://" in first[1] or "@" in first[1] or "|" in first[1])


def _scan_line(text: str, start: int, end: int, spans: list[Span], vetoes: list[tuple[int, int]],
               depth: int = 0) -> None:
    found = words(text, start, end)
    for w_start, w_end, word in found:  # `sh 'docker login ...'`, `bash -c "..."`, `ssh host '...'`
        if depth < 2 and word[-1:] in "'\"`" and " -" in word:
            eq = word.find("=") + 1 if word[:1] not in "'\"`" else 0  # `alias x='cmd -p ...'`, `X="cmd ..."`
            if word[eq:eq + 1] == word[-1:] and (eq == 0 or word[:eq - 1].replace("_", "").replace("-", "").isalnum()):
                _scan_line(text, w_start + eq + 1, w_end - 1, spans, vetoes, depth + 1)
    commands = segments(found)
    for index, seg in enumerate(commands):
        if seg:
            _scan_segment(text, seg, spans, vetoes)
            stdin_literal(text, seg, commands[index + 1] if index + 1 < len(commands) else [], spans)


def _scan_segment(text: str, seg: list[Word], spans: list[Span], vetoes: list[tuple[int, int]]) -> None:
    names = _Facts(seg)  # what the command's words say, worked out once: linear in its length
    for i, (w_start, w_end, word) in enumerate(seg):
        if word in ("-login", "+login"):
            _login_pair(text, seg, i, spans)
        elif word.startswith("-") or word.startswith("/"):
            _flag(text, seg, i, names, spans)
            _veto(text, seg, i, names, vetoes)
        elif word.lower().startswith(("pass:", "'pass:", '"pass:')):
            value = unquote(text, w_start, w_end)
            colon = text.find(":", value[0]) + 1
            add(text, colon, value[1], spans)
        elif "=" in word:
            _name_value(text, w_start, w_end, spans, vetoes)
        if ":" in word and ("@" in word or names[0].endswith(".py") or names[0].startswith("impacket-")):
            _impacket(text, w_start, w_end, spans, "@" not in word)
        if i + 1 < len(seg) and not seg[i + 1][2].startswith("-") and _pattern("named_ref").fullmatch(word):
            vetoes.append(seg[i + 1][:2])  # `-pw $password root@host`: the host is not the password
    positional(text, seg, names, spans)


def _flag(text: str, seg: list[Word], i: int, names: _Facts, spans: list[Span]) -> None:
    w_start, w_end, word = seg[i]
    after = seg[i + 1] if i + 1 < len(seg) else None
    table, user, login = names.table, names.user, names.login
    if word.startswith(("/p:", "/P:", "/password:")) and names.windows_user:
        value = text[text.find(":", w_start) + 1:w_end]
        if "=" not in value:
            add(text, text.find(":", w_start) + 1, w_end, spans)
        return
    for flag in table:
        if flag.endswith("*") and word.startswith(flag[:-1]) and len(word) > len(flag) - 1 and (
                word[len(flag) - 1] not in "-="):
            add(text, w_start + len(flag) - 1, w_end, spans, unquoted=True)
            return
    if after is not None and (word in table or (login and word in _LOGIN_FLAGS)
                              or (user and word in _PASSWORD_SHORT and not _mysql_prompt(names.mysql, after[2]))):
        value_word(text, after, spans, numbers=not (word in table or names.mysql or (login and word in _LOGIN_FLAGS)))
        return
    if after is not None and (word in _HASH_FLAGS or word.startswith(("/pth:", "-pth"))) and (
            word != "-H" or names.user):
        _nt_hash(text, seg[i] if word.startswith("/pth:") else after, spans)
        return
    if word in ("-u", "--user") and after is not None and "," in after[2] and "lftp" in names:
        start, end = unquote(text, after[0], after[1])  # `lftp -u user,secret host`
        add(text, text.find(",", start, end) + 1, end, spans)
        return
    if word in _CREDENTIAL_FLAGS or (word in ("-U", "--user", "-u") and after is not None and (
            "%" in after[2] or '":' in after[2] or "':" in after[2])):  # `DOM\\user%X`, `"user@host":X`
        if after is not None:
            user_secret(text, after, spans)
        return
    if user and word.startswith("-p") and len(word) > 4 and not word.startswith("--") and names[0:1] != ["mysql"]:
        glued = word[2:]
        if any(not c.isalpha() for c in glued) or any(c.isupper() for c in glued):
            add(text, w_start + 2, w_end, spans)
            return
    if names.identity and after is not None and len(word) == 2 and word[1].isalpha() and _generated(text, after):
        value_word(text, after, spans, numbers=False)  # `dexter auth --client-id ID -s <generated>`
        return
    _long_flag(text, seg, i, spans)


def _nt_hash(text: str, word: Word, spans: list[Span]) -> None:
    """An NT hash given in place of a password (`-H <32 hex>`, `-hashes LM:NT`, `/pth:<hash>`)."""
    start, end = unquote(text, word[0], word[1])
    if text.startswith("/pth:", start):
        start += 5
    match = _pattern("nt_hash").fullmatch(text, start, end)
    if match is not None:
        add(text, match.start("nt"), match.end("nt"), spans)


def _generated(text: str, word: Word) -> bool:
    """A value that looks generated, not written: mixed case and digits, 16+ characters."""
    start, end = unquote(text, word[0], word[1])
    value = text[start:end]
    return looks_random(value) and key_shaped(value)


def _login_pair(text: str, seg: list[Word], i: int, spans: list[Span]) -> None:
    """`steam -login USER PASSWORD`, `steamcmd +login USER PASSWORD`: a login flag given the
    user and the password as its next two words."""
    pair = seg[i + 1:i + 3]
    if len(pair) == 2 and not any(w[2].startswith(("-", "+")) for w in pair):
        value_word(text, pair[1], spans, numbers=False)


def _veto(text: str, seg: list[Word], i: int, names: _Facts, vetoes: list[tuple[int, int]]) -> None:
    """What follows a flag that takes no secret: the next word is not one."""
    w_start, w_end, word = seg[i]
    after = seg[i + 1] if i + 1 < len(seg) else None
    low = word.lower()
    bare = low.split("=", 1)[0]
    if bare in _SECRET_NAME_FLAGS and names.manager:  # `gcloud secrets ... --secret=db-password`: a secret's name
        vetoes.append((w_start, w_end) if "=" in low else (w_start, after[1] if after is not None else w_end))
    if low.startswith("--"):  # a long flag's name is never a secret (its value is judged on its own)
        vetoes.append((w_start, w_start + len(bare) + ("=" in low)))
    if after is None:
        return
    if low.endswith("="):  # `--password= --execute=...`: an empty value; a flag after it is its own
        if not after[2].startswith("-"):
            vetoes.append((after[0], after[1]))
        return
    if (bare.endswith(("-stdin", "-hash", "-file", "-path", "-id", "-name")) or bare.startswith(_BOOLEAN_PREFIXES)
            or (bare in ("--password", "-w") and names.prompting)
            or (bare in ("--password", "-p") and _mysql_prompt(names.mysql, after[2]))):
        vetoes.append((after[0], after[1]))
    if bare == "--secret" and names.pulumi:
        vetoes.append((after[0], after[1]))  # `pulumi config set --secret KEY value`: KEY names it
    if bare in ("--secret", "--mount") and pattern("buildkit").match(after[2].strip("'\"")):
        vetoes.append((after[0], after[1]))
    if pattern("redirect").match(after[2]):
        vetoes.append((after[0], after[1]))



class _Facts(list[str]):
    """The basenames of a command's words, with what they say worked out once (each fact is
    a set or a flag, so looking one up does not walk the words again)."""

    def __init__(self, seg: list[Word]) -> None:
        names = [basename(w[2]) for w in seg]
        super().__init__(names)
        # the flags whose value is a secret for the commands named here, each once
        self.table = tuple(dict.fromkeys(flag for name in names for flag in SECRET_FLAGS.get(name, ())))
        self.windows_user = any(w[2].startswith(("/u:", "/U:")) for w in seg)
        self.user = self.windows_user or any(w[2] in _USER_FLAGS for w in seg)
        self.identity = self.user or any(w[2].split("=", 1)[0] in _IDENTITY_FLAGS for w in seg)
        # a login, or a subcommand that creates or unlocks a credential store, takes its secret by flag
        self.login = any(w[2].strip("'\"") == "login" for w in seg) or _store_word(_subcommand(seg))
        self.mysql = any(n.startswith(("mysql", "mariadb")) for n in names)
        self.prompting = any(n in _PROMPTING for n in names)
        self.manager = any(n in ("secrets", "secret", "secretsmanager", "keyvault") for n in names[1:])
        self.pulumi = "pulumi" in names


def _subcommand(seg: list[Word]) -> str:
    """The word after the command's name (past `sudo`, a prompt, `NAME=value` words), or ""."""
    index = 0
    while index < len(seg) and (seg[index][2] in _PREFIX_WORDS or "=" in seg[index][2]):
        index += 1
    return seg[index + 1][2] if index + 1 < len(seg) else ""


def _store_word(word: str) -> bool:
    """A subcommand (a bare lower-case word, `create-keychain`, `unlock`) that works on a
    credential store; not a flag, a `NAME=value` word, a quoted prompt or a path."""
    return (word == "unlock" or any(w in word for w in _STORE_WORDS)) and word[:1].isalpha() and (
        word.replace("-", "").isalpha() and word.islower())


def _mysql_prompt(mysql: bool, value: str) -> bool:
    """`mysql -p db`: the password is asked for and `db` is the database, unless the word after
    `-p` cannot be a database name (digits only, a symbol, upper case with digits)."""
    if not mysql:
        return False
    bare = value.strip("'\"")
    if bare.isdigit() and len(bare) >= 4:
        return False
    if re.search(r"[^\w-]", bare) or (any(c.isupper() for c in bare) and any(c.isdigit() for c in bare)):
        return False
    return True


def _long_flag(text: str, seg: list[Word], i: int, spans: list[Span]) -> None:
    from .names import classify

    w_start, w_end, word = seg[i]
    match = _pattern("long_flag").fullmatch(word)
    if match is None:
        if word.startswith("-D") and "=" in word:  # `-Dsonar.login=<token>`: a Java property
            _name_value(text, w_start + 2, w_end, spans)
        return
    flag = match.group("flag")
    low = flag.lower()
    if low.endswith(_NOT_VALUE_SUFFIXES) or low.startswith(_BOOLEAN_PREFIXES):
        return
    family = classify(flag)
    if family == "key":
        value = match.group("value") or (seg[i + 1][2] if i + 1 < len(seg) else "")
        if not key_shaped(value.strip("'\"")):
            return
    elif family not in _SECRET_FAMILIES and not (family or "").endswith(("-key", "-token", "-secret")):
        if not low.endswith(("-pass", "pass", "-pw", "passwd", "passcode", "-otp", "-pin")):
            if match.group("value") is not None and "=" in match.group("value"):
                _name_value(text, w_start + len(flag) + 1, w_end, spans)
            return
    if match.group("value") is not None:
        value_start = w_start + len(flag) + 1
        if value_start < w_end:
            value_word(text, (value_start, w_end, text[value_start:w_end]), spans, numbers=False,
                        user_pass=family == "credentials")
    elif i + 1 < len(seg):
        value_word(text, seg[i + 1], spans, numbers=False, user_pass=family == "credentials")


def _impacket(text: str, start: int, end: int, spans: list[Span], bare: bool = False) -> None:
    """`DOMAIN/user:secret@target`, `user:secret@host/db`: not a URL (that is `redact`'s),
    not `image:tag@sha256:...`; with `bare` (an impacket script: `tool.py`,
    `impacket-tool`), `DOMAIN/user:secret` with no target."""
    s, e = unquote(text, start, end)
    if "://" in text[s:e]:
        return
    if bare:
        match = _pattern("impacket_bare").fullmatch(text, s, e)
        if match is not None:
            add(text, match.start("pw"), match.end("pw"), spans)
        return
    for match in _pattern("impacket_quoted").finditer(text, start, end):  # `user:'secret'@host`
        add(text, match.start("pw"), match.end("pw"), spans)
    for match in _pattern("impacket").finditer(text, s, e):
        if text.startswith(("sha256:", "sha512:", "sha1:"), match.end()):
            continue
        if match.start() > s and text[match.start() - 1] not in "=\"'":
            continue
        add(text, match.start("pw"), match.end("pw"), spans)


def _name_value(text: str, start: int, end: int, spans: list[Span], vetoes: list[tuple[int, int]] | None = None) -> None:
    """`NAME=value` words (`PGPASSWORD=x`, `--from-literal=password=x`, `'db_password=x'`), and
    lists of them (`-o username=u,password=x`, `--set a=b,auth.password=x`)."""
    s, e = unquote(text, start, end)
    if text.startswith("-", s):
        eq = text.find("=", s, e)
        if eq == -1:
            return
        s = eq + 1
        if text.startswith(("'", '"'), s):
            s, e = unquote(text, s, e)
    first, kept, vetoed = s, len(spans), False
    while s < e:  # one `name=value` of a comma-separated list at a time
        match = _pattern("name_value").match(text, s, e)
        if match is None:
            break
        comma = text.find(",", match.start("value"), e)
        following = comma != -1 and _pattern("name_value").match(text, comma + 1, e) is not None
        vetoed |= _one_name_value(text, match.group("name"), match.start("value"), comma if following else e, spans)
        if not following:
            break
        s = comma + 1
    if vetoed and len(spans) == kept and vetoes is not None:  # what the general scans guess there is not one
        vetoes.append((first, e))


def _one_name_value(text: str, name: str, start: int, end: int, spans: list[Span]) -> bool:
    """Record the secret of one `name=value`; whether the name is a secret's but the value is not."""
    from .names import classify

    family = classify(name)
    v_start, v_end = unquote(text, start, end)
    value = text[v_start:v_end]
    if _pattern("not_secret_name").search(name.lower()) and not _pattern("secret_suffix").search(name.lower()):
        return False  # `auth.usernames[0]=user`, `auth.database=db`: who and where, not the secret
    if not (family in _SECRET_FAMILIES or (family or "").endswith(("-key", "-token", "-secret"))
            or _pattern("secret_suffix").search(name.lower())):
        if name.lower().endswith((".login", "_login")) and (_generated(text, (v_start, v_end, value))
                                                              or re.fullmatch(r"[0-9a-f]{32,}", value)):
            add(text, v_start, v_end, spans)  # `-Dsonar.login=<token>`: a login given a generated value
        return False
    if family in ("auth-token", "credentials") and re.fullmatch(r"[\w.-]{1,64}/\S+", value):
        v_start = text.find("/", v_start) + 1  # `NEO4J_AUTH=neo4j/secret`: the user stays
    kept = len(spans)
    if not (value.startswith(("/", "~/", "./")) and " " not in value):  # not `credentials=/etc/smb.creds`
        add(text, v_start, v_end, spans)
    return len(spans) == kept  # a secret's name given a placeholder, a reference or a path


__all__ = ["SECRET_FLAGS", "scan_commands"]
