"""Secrets on command lines: the forms a shell command gives them that prose does not.

`redact_command(line)` is what the rest of Loreline calls on a command the assistant ran; the
general `redact` runs the same rules on every line of any text that reads as a command (a
shell prompt, a `RUN` step, a pasted snippet), so a command pasted into prose loses them too.

A command line is read as shell words (whitespace-separated; quotes kept on the word and taken
off its value) cut into commands at `|`, `||`, `&&`, `;`. Forms, each with its look-alikes:

* **a password flag beside a user flag**: `-p X` / `-P X` / `-w X` / `/p X` / `/p:X` where the
  same command names a user (`-u`, `-U`, `--user`, `--username`, `-l`, `/u`, `-D`): `rdesktop -u
  me -p X`, `ldapsearch -D dn -w X`. Numbers and port maps stay (`docker run -u 1000 -p
  8080:80`, `psql -U me -p 5432`); `mysql -p db` stays (it prompts; `db` is the database);
* **commands whose flag takes a secret** (`SECRET_FLAGS`): `sshpass -p`, `redis-cli -a`,
  `7z -pX`, `rar -hpX`, `zip -P`, `pdfinfo -upw`, `snmpwalk -A`, `<tool> login -p/-t`, and any
  `pass:X` (OpenSSL's form);
* **long flags named for a secret** (`--password X`, `--api-key=X`, `-computer-pass X`,
  `--client-secret X`), whatever the value looks like; not `--password-stdin`, `--token-file
  path`, a flag given a reference (`$X`, `${X}`, `$(...)`), a path, or a BuildKit mount spec
  (`--secret id=npmrc,src=.npmrc`); `--credential user:X` / `--auth user:X` keep the user;
* **user:password arguments**: `DOMAIN/user:X@host` (impacket tools, DSNs), `user:X` after a
  credential flag, `DOMAIN\\user%X` after `-U`/`--user` (Samba); not `image:tag@sha256:...`;
* **positional secrets of known commands**: `htpasswd -b file user X`, `htpasswd -nb user X`,
  `rabbitmqctl add_user user X`, `wpa_passphrase ssid X`, `create_ap ... ssid X`,
  `idevicebackup2 encryption on X`, `vault login X`, `pulumi config set --secret key X`,
  `npm config set //host/:_authToken X`;
* **a literal piped or fed to a command that reads a secret from stdin**: `echo X | docker
  login --password-stdin`, `yes X | passwd`, `gh auth login --with-token <<< X`;
* **`NAME=value` words** whose name holds a secret (`PGPASSWORD=x psql`, `--from-literal=
  password=x`, `-var 'db_password=x'`) even when the value looks like a word, which the
  general scan leaves alone in code (`f(password=pw)`).

Cost: `redact` calls `scan_commands` only when one bytes regex (`_GATE`, literal-led) finds a
trigger; only the lines holding a trigger are split into words. Patterns compile on first use.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .context import key_shaped, looks_random, placeholder

if TYPE_CHECKING:
    from collections.abc import Callable

Span = tuple[int, int, str, int]
_PRIORITY = 1
Word = tuple[int, int, str]  # start, end, the word as written

_USER_FLAGS = frozenset("-u -U --user --username -l --login -D /u /U --user1 --user2 -login".split())
_PASSWORD_SHORT = frozenset("-p -P -w /p /P".split())
_BARE_PROMPTS = frozenset("$ # > % sudo time exec nohup env".split())
_SEPARATORS = frozenset("| || && ; &".split())
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
}
# commands whose `--password` / `-W` asks for the password and takes no value
_PROMPTING = frozenset("psql pg_dump pg_dumpall pg_restore pg_basebackup createdb dropdb createuser dropuser "
                       "vacuumdb reindexdb clusterdb pgbench".split())
# flags a `<tool> [auth|registry] login` command takes a secret with
_LOGIN_FLAGS = frozenset("-p -t -k --password --token --api-key --apikey".split())
_CREDENTIAL_WORDS = frozenset("token login register encrypt unlock auth apikey api-key password passwd secret "
                               "passphrase".split())
_STDIN_READERS = ("--password-stdin", "--with-token", "--token-stdin", "chpasswd", "passwd", "--stdin")
_CREDENTIAL_FLAGS = frozenset("-C --credential --credentials --creds --auth -auth -a --basic-auth -basic-auth "
                              "--http-auth --proxy-user".split())
_NOT_VALUE_SUFFIXES = ("-stdin", "-file", "-path", "-env", "-id", "-name", "-url", "-length", "-prompt", "-dir",
                       "-command", "-cmd", "-helper", "-store", "-type", "-ttl", "-expiry")
_BOOLEAN_PREFIXES = ("--with-", "--no-", "--show-", "--print-", "--generate-", "--rotate-", "--revoke-",
                     "--skip-", "--use-", "--ask-", "--prompt-", "--allow-", "--require-", "--reset-")
_SECRET_FAMILIES = frozenset(["password", "secret", "token", "api-key", "auth-token", "credentials"])

_compiled: dict[str, re.Pattern[str]] = {}
_compiled_bytes: dict[str, re.Pattern[bytes]] = {}


def _re(name: str) -> re.Pattern[str]:
    """The pattern `name`, compiled on first use."""
    pattern = _compiled.get(name)
    if pattern is None:
        pattern = _compiled[name] = re.compile(_SOURCES[name])
    return pattern


_SOURCES = {
    "word": r"""(?:[^\s"'`]|"(?:[^"\\\n]|\\.){0,400}"|'[^'\n]{0,400}'|`[^`\n]{0,400}`)+""",
    "number": r"\d{1,5}(?:[-:]\d{1,5}){0,2}|[\d.]{7,15}:\d{1,5}(?::\d{1,5})?|[\d.:/\[\]-]{1,40}[.:/\[\]-][\d.:/\[\]-]{0,40}",
    "impacket": r"""(?:[\w.-]{1,64}[/\\]{1,2})?[\w.$-]{1,64}:(?P<pw>[^\s@:'"/]{1,128})@(?=[\w.\[-])""",
    "impacket_bare": r"""[A-Za-z][\w.-]{0,63}/[\w.$-]{1,64}:(?P<pw>[^\s@'"/]{1,128})""",
    "user_pw": r"""(?:[\w.-]{1,64}[/\\]{1,2})?[\w.@$-]{1,64}(?P<sep>[:%])(?P<pw>[^\s'"]{1,128})""",
    "name_value": r"(?P<name>[A-Za-z_][\w.-]{0,64})=(?P<value>[^\s]{1,4096})",
    "long_flag": r"(?P<flag>--?[A-Za-z][\w-]{2,64})(?:=(?P<value>.{0,4096}))?",
    "buildkit": r"(?:id|src|source|env|type|target|required|mode|uid|gid)=",
    "redirect": r"\d?[<>]|&|\|",
    # a value that is (or is built from) a reference: `$X`, `${X}`, `$(cmd)`, `` `cmd` ``, `#{x}`,
    # `{{ x }}`, `%X%`, `$env:X`, `' + x + '`
    "reference": r"\$[{(A-Za-z_$]|\\\$|`|#\{|\{\{|%[A-Za-z_]\w*%|\$env:|['\"] ?\+|\+ ?['\"]",
}
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
    gate = _compiled_bytes.get("gate")
    if gate is None:
        gate = _compiled_bytes["gate"] = re.compile(_GATE_SOURCE)
    hits = [m.start() for m in gate.finditer(low)]
    if b"@" in low:  # `user:secret@host`, `DOMAIN\\user%secret@host`
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
    return bool(re.fullmatch(r"[A-Za-z0-9_./\\~-]{1,64}", word)) and word[0] not in ".-" and (
        " -" in first[1] or "://" in first[1] or "@" in first[1] or "|" in first[1])


def _scan_line(text: str, start: int, end: int, spans: list[Span], vetoes: list[tuple[int, int]],
               depth: int = 0) -> None:
    words = [(m.start(), m.end(), m.group()) for m in _re("word").finditer(text, start, end)]
    for w_start, w_end, word in words:  # `sh 'docker login ...'`, `bash -c "..."`, `ssh host '...'`
        if depth < 2 and word[:1] in "'\"" and word[-1:] == word[:1] and " -" in word:
            _scan_line(text, w_start + 1, w_end - 1, spans, vetoes, depth + 1)
    segment: list[Word] = []
    segments: list[list[Word]] = []
    for item in words:
        bare = item[2].rstrip(";")
        if item[2] in _SEPARATORS:
            segments.append(segment)
            segment = []
        else:
            segment.append(item if bare == item[2] else (item[0], item[0] + len(bare), bare))
            if bare != item[2]:
                segments.append(segment)
                segment = []
    segments.append(segment)
    for index, seg in enumerate(segments):
        if seg:
            _scan_segment(text, seg, spans, vetoes)
            _stdin_literal(text, seg, segments[index + 1] if index + 1 < len(segments) else [], spans)


def _scan_segment(text: str, seg: list[Word], spans: list[Span], vetoes: list[tuple[int, int]]) -> None:
    names = [_basename(w[2]) for w in seg]
    user = any(w[2] in _USER_FLAGS or w[2].startswith(("/u:", "/U:")) for w in seg)
    login = "login" in names
    names = _Facts(names)  # what the segment's words say, worked out once: linear in its length
    for i, (w_start, w_end, word) in enumerate(seg):
        after = seg[i + 1] if i + 1 < len(seg) else None
        if word.startswith("-") or word.startswith("/"):
            _flag(text, seg, i, names, user, login, spans)
            _veto(text, seg, i, names, vetoes)
        elif word.lower().startswith(("pass:", "'pass:", '"pass:')):
            value = _unquote(text, w_start, w_end)
            colon = text.find(":", value[0]) + 1
            _add(text, colon, value[1], spans)
        elif "=" in word:
            _name_value(text, w_start, w_end, spans)
        if ":" in word and ("@" in word or names[0].endswith(".py") or names[0].startswith("impacket-")):
            _impacket(text, w_start, w_end, spans, "@" not in word)
    _positional(text, seg, names, spans)


def _flag(text: str, seg: list[Word], i: int, names: _Facts, user: bool, login: bool,
          spans: list[Span]) -> None:
    w_start, w_end, word = seg[i]
    after = seg[i + 1] if i + 1 < len(seg) else None
    table = names.table
    if word.startswith(("/p:", "/P:", "/password:")) and any(w[2].startswith(("/u:", "/U:")) for w in seg):
        value = text[text.find(":", w_start) + 1:w_end]
        if "=" not in value:
            _add(text, text.find(":", w_start) + 1, w_end, spans)
        return
    for flag in table:
        if flag.endswith("*") and word.startswith(flag[:-1]) and len(word) > len(flag) - 1 and (
                word[len(flag) - 1] not in "-="):
            _add(text, w_start + len(flag) - 1, w_end, spans, unquote=True)
            return
    if after is not None and (word in table or (login and word in _LOGIN_FLAGS)
                              or (user and word in _PASSWORD_SHORT and not _mysql_prompt(names.mysql, after[2]))):
        _value_word(text, after, spans, numbers=not (word in table or names.mysql or (login and word in _LOGIN_FLAGS)))
        return
    if word in _CREDENTIAL_FLAGS or (word in ("-U", "--user", "-u") and after is not None and "%" in after[2]):
        if after is not None:
            _user_secret(text, after, spans)
        return
    if user and word.startswith("-p") and len(word) > 4 and not word.startswith("--") and names[0:1] != ["mysql"]:
        glued = word[2:]
        if any(not c.isalpha() for c in glued) or any(c.isupper() for c in glued):
            _add(text, w_start + 2, w_end, spans)
            return
    _long_flag(text, seg, i, spans)


def _veto(text: str, seg: list[Word], i: int, names: _Facts, vetoes: list[tuple[int, int]]) -> None:
    """What follows a flag that takes no secret: the next word is not one."""
    w_start, w_end, word = seg[i]
    after = seg[i + 1] if i + 1 < len(seg) else None
    low = word.lower()
    if low.endswith("=") and after is not None:  # `--password= --execute=...`: an empty value
        vetoes.append((after[0], after[1]))
        return
    if after is None:
        return
    bare = low.split("=", 1)[0]
    if (bare.endswith("-stdin") or bare.startswith(_BOOLEAN_PREFIXES)
            or (bare in ("--password", "-w") and names.prompting)
            or (bare in ("--password", "-p") and _mysql_prompt(names.mysql, after[2]))):
        vetoes.append((after[0], after[1]))
    if bare in ("--secret", "--secret-id", "--secret-name", "--name", "--id") and names.manager:
        vetoes.append((w_start, after[1]))  # `gcloud secrets ... --secret=db-password`: a secret's name
    if bare == "--secret" and names.pulumi:
        vetoes.append((after[0], after[1]))  # `pulumi config set --secret KEY value`: KEY names it
    if bare in ("--secret", "--mount") and _re("buildkit").match(after[2].strip("'\"")):
        vetoes.append((after[0], after[1]))
    if _re("redirect").match(after[2]):
        vetoes.append((after[0], after[1]))


def _table_flags(names: list[str]) -> tuple[str, ...]:
    flags: tuple[str, ...] = ()
    for name in names:
        flags += SECRET_FLAGS.get(name, ())
    return flags


class _Facts(list[str]):
    """The basenames of a command's words, with what they say worked out once."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(names)
        self.table = _table_flags(names)
        self.mysql = any(n.startswith(("mysql", "mariadb")) for n in names)
        self.prompting = any(n in _PROMPTING for n in names)
        self.manager = any(n in ("secrets", "secret", "secretsmanager", "keyvault") for n in names[1:])
        self.pulumi = "pulumi" in names


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
    match = _re("long_flag").fullmatch(word)
    if match is None:
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
            _value_word(text, (value_start, w_end, text[value_start:w_end]), spans, numbers=False,
                        user_pass=family == "credentials")
    elif i + 1 < len(seg):
        _value_word(text, seg[i + 1], spans, numbers=False, user_pass=family == "credentials")


def _value_word(text: str, word: Word, spans: list[Span], numbers: bool = True, user_pass: bool = False) -> None:
    """The value a flag was given: not a flag, a reference, a placeholder, a redirection, a
    path or a BuildKit spec; with `numbers`, not a number or a port map either."""
    start, end = _unquote(text, word[0], word[1])
    value = text[start:end]
    if not value or value.startswith("-") or _re("redirect").match(value) or _re("buildkit").match(value):
        return
    if numbers and _re("number").fullmatch(value):
        return
    if value.startswith(("/", "~/", "./", "../")) and " " not in value:
        return
    if user_pass and ":" in value:
        start = text.find(":", start) + 1
    _add(text, start, end, spans)


def _user_secret(text: str, word: Word, spans: list[Span]) -> None:
    """`user:secret` or `DOMAIN\\user%secret`: only the secret goes."""
    start, end = _unquote(text, word[0], word[1])
    match = _re("user_pw").fullmatch(text, start, end)
    if match is not None:
        _add(text, match.start("pw"), match.end("pw"), spans)


def _impacket(text: str, start: int, end: int, spans: list[Span], bare: bool = False) -> None:
    """`DOMAIN/user:secret@target`, `user:secret@host/db`: not a URL (that is `redact`'s),
    not `image:tag@sha256:...`; with `bare` (an impacket script: `tool.py`,
    `impacket-tool`), `DOMAIN/user:secret` with no target."""
    s, e = _unquote(text, start, end)
    if "://" in text[s:e]:
        return
    if bare:
        match = _re("impacket_bare").fullmatch(text, s, e)
        if match is not None:
            _add(text, match.start("pw"), match.end("pw"), spans)
        return
    for match in _re("impacket").finditer(text, s, e):
        if text.startswith(("sha256:", "sha512:", "sha1:"), match.end()):
            continue
        if match.start() > s and text[match.start() - 1] not in "=\"'":
            continue
        _add(text, match.start("pw"), match.end("pw"), spans)


def _name_value(text: str, start: int, end: int, spans: list[Span]) -> None:
    """`NAME=value` words (`PGPASSWORD=x`, `--from-literal=password=x`, `'db_password=x'`)."""
    from .names import classify

    s, e = _unquote(text, start, end)
    if text.startswith("-", s):
        eq = text.find("=", s, e)
        if eq == -1:
            return
        s = eq + 1
        if text.startswith(("'", '"'), s):
            s, e = _unquote(text, s, e)
    match = _re("name_value").fullmatch(text, s, e)
    if match is None:
        return
    family = classify(match.group("name"))
    if family in _SECRET_FAMILIES or (family or "").endswith(("-key", "-token", "-secret")):
        v_start, v_end = _unquote(text, match.start("value"), match.end("value"))
        _add(text, v_start, v_end, spans)


def _positional(text: str, seg: list[Word], names: list[str], spans: list[Span]) -> None:
    plain = [w for w in seg if not w[2].startswith("-")]
    for before, word in zip(plain[1:], plain[2:]):  # `<tool> token X`, `<tool> register X`: a generated X
        value = word[2].strip("'\"")
        if before[2].lower().lstrip("-") in _CREDENTIAL_WORDS and "=" not in value and (
                key_shaped(value) or looks_random(value)):
            _value_word(text, word, spans, numbers=False)
    for index, name in enumerate(names):
        rule = _POSITIONAL.get(name)
        if rule is not None:
            rule(text, seg, index, plain, spans)
            return
        if name.endswith((":_authtoken", ":_password", ":_auth")) and index + 1 < len(seg):
            _value_word(text, seg[index + 1], spans)
            return


def _nth_after(text: str, plain: list[Word], name_word: Word, n: int, spans: list[Span]) -> None:
    after = [w for w in plain if w[0] > name_word[0]]
    if len(after) > n:
        _value_word(text, after[n], spans, numbers=False)


def _htpasswd(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    flags = "".join(w[2][1:] for w in seg[index + 1:] if w[2].startswith("-") and not w[2].startswith("--"))
    if "b" in flags:
        _nth_after(text, plain, seg[index], 1 if "n" in flags else 2, spans)


def _rabbitmq(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    after = [w for w in plain if w[0] > seg[index][0]]
    if after and after[0][2] in ("add_user", "change_password") and len(after) > 2:
        _value_word(text, after[2], spans, numbers=False)


def _last_of_three(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    after = [w for w in plain if w[0] > seg[index][0]]
    if len(after) >= 3 or (_basename(seg[index][2]) == "wpa_passphrase" and len(after) == 2):
        _value_word(text, after[-1], spans, numbers=False)


def _after_words(*words: str) -> Callable[[str, list[Word], int, list[Word], list[Span]], None]:
    def rule(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
        after = [w for w in plain if w[0] > seg[index][0]]
        if len(after) > len(words) and [w[2] for w in after[:len(words)]] == list(words) and (
                "=" not in after[len(words)][2]):
            _value_word(text, after[len(words)], spans, numbers=False)
    return rule


def _pulumi(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    for i, word in enumerate(seg):
        if word[2] == "--secret" and i + 2 < len(seg) and not seg[i + 2][2].startswith("-"):
            _value_word(text, seg[i + 2], spans, numbers=False)


def _netsh(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    for w_start, w_end, word in seg[index + 1:]:
        if word.lower().startswith("key=") and len(word) > 4:
            _add(text, w_start + 4, w_end, spans, unquote=True)


_POSITIONAL: dict[str, Callable[[str, list[Word], int, list[Word], list[Span]], None]] = {
    "htpasswd": _htpasswd, "rabbitmqctl": _rabbitmq, "wpa_passphrase": _last_of_three, "create_ap": _last_of_three,
    "idevicebackup2": _after_words("encryption", "on"), "vault": _after_words("login"), "pulumi": _pulumi,
    "netsh": _netsh,
}


def _stdin_literal(text: str, seg: list[Word], following: list[Word], spans: list[Span]) -> None:
    """`echo X | docker login --password-stdin`, `yes X | passwd`, `... --with-token <<< X`."""
    words = [w[2] for w in seg]
    if "<<<" in words and any(w.startswith(_STDIN_READERS) for w in words):
        here = words.index("<<<")
        if here + 1 < len(seg):
            _value_word(text, seg[here + 1], spans, numbers=False)
    encoder = bool(following) and _basename(following[0][2]) in ("base64", "openssl")
    echo = [i for i, w in enumerate(seg) if _basename(w[2]) in ("echo", "printf")]
    if encoder and echo:  # `echo -n user:secret | base64`: a Basic header
        literal = [w for w in seg[echo[-1] + 1:] if not w[2].startswith("-")]
        if literal and ":" in literal[-1][2]:
            _user_secret(text, literal[-1], spans)
        return
    if len(seg) >= 2 and _basename(seg[0][2]) in ("echo", "yes", "printf") and following and any(
            w[2].startswith(_STDIN_READERS) or _basename(w[2]) in ("chpasswd", "passwd") for w in following):
        literal = [w for w in seg[1:] if not w[2].startswith("-")]
        if literal:
            _value_word(text, literal[-1], spans, numbers=False, user_pass=any(
                _basename(w[2]) == "chpasswd" for w in following))


def _basename(word: str) -> str:
    bare = word.strip("'\"`()$").lower()
    return bare.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]


def _unquote(text: str, start: int, end: int) -> tuple[int, int]:
    """The value of a shell word without its quotes (and a JSON-escaped quote)."""
    if text.startswith('\\"', start) and text.endswith('\\"', start, end) and end - start >= 4:
        return start + 2, end - 2
    if end - start >= 2 and text[start] in "'\"`" and text[end - 1] == text[start]:
        return start + 1, end - 1
    if text[start:start + 1] in ("'", '"'):
        return start + 1, end
    if end > start and text[end - 1] in "'\"":
        return start, end - 1
    return start, end


def _add(text: str, start: int, end: int, spans: list[Span], unquote: bool = False) -> None:
    if unquote:
        start, end = _unquote(text, start, end)
    value = text[start:end]
    if end <= start or placeholder(value) or value.startswith(("%", "<", "[REDACTED")) or _re("reference").search(value):
        return
    if value.isalpha() and value.isupper():
        return  # `PASSWORD`, `APIKEY`: the name of a value, written where it goes
    spans.append((start, end, "password" if len(value) < 24 else "secret", _PRIORITY))


def redact_command(text: str) -> str:
    """`text`, a command line (or several), with every recognised secret replaced by a typed
    marker: the command rules on every line, and everything `redact` finds."""
    from .redact import redact_with

    return redact_with(text, whole_commands=True)


__all__ = ["redact_command", "scan_commands", "SECRET_FLAGS"]
