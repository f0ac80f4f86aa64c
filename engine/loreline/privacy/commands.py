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
* **a generated value beside an identity**: any one-letter flag whose value looks generated
  (mixed case and digits, 16+ characters) in a command that names a user or a client, app or
  key id (`tool auth --client-id ID -s X`); a UUID or a commit id there stays;
* **commands whose flag takes a secret** (`SECRET_FLAGS`): `sshpass -p`, `redis-cli -a`,
  `7z -pX`, `rar -hpX`, `zip -P`, `pdfinfo -upw`, `snmpwalk -A`, `<tool> login -p/-t`, and any
  `pass:X` (OpenSSL's form);
* **long flags named for a secret** (`--password X`, `--api-key=X`, `-computer-pass X`,
  `--client-secret X`), whatever the value looks like; not `--password-stdin`, `--token-file
  path`, a flag given a reference (`$X`, `${X}`, `$$(...)` in a Makefile, `$(...)`), a path, a
  BuildKit mount spec (`--secret id=npmrc,src=.npmrc`) or nothing (`--user= --password=X`: the
  empty `--user=` takes no word, `--password=X` is read on its own); a long flag's own name is
  never a secret; `--credential user:X` / `--auth user:X` keep the user;
* **user:password arguments**: `DOMAIN/user:X@host` (impacket tools, DSNs), `user:X` after a
  credential flag, `DOMAIN\\user%X` after `-U`/`--user` (Samba); not `image:tag@sha256:...`;
* **positional secrets of known commands**: `htpasswd -b file user X`, `htpasswd -nb user X`,
  `rabbitmqctl add_user user X`, `wpa_passphrase ssid X`, `create_ap ... ssid X`,
  `idevicebackup2 encryption on X`, `vault login X`, `pulumi config set --secret key X`,
  `npm config set //host/:_authToken X`, `networksetup -setairportnetwork dev ssid X`, the key
  an OTP generator is given (`oathtool --totp --base32 X`), `mysqladmin password X`,
  `mosquitto_passwd -b file user X`, `net use \\\\host\\share X`, `net user name X`, `mc alias
  set name url key X`;
* **an NT hash in place of a password** (`evil-winrm -u u -H <hash>`, `-hashes LM:NT`);
* **a literal piped or fed to a command that reads a secret from stdin**: `echo X | docker
  login --password-stdin`, `yes X | passwd`, `gh auth login --with-token <<< X`;
* **`NAME=value` words** whose name holds a secret (`PGPASSWORD=x psql`, `--from-literal=
  password=x`, `-var 'db_password=x'`) even when the value looks like a word, which the
  general scan leaves alone in code (`f(password=pw)`); lists of them (`-o username=u,password=x`,
  `--set a=b,auth.password=x`), `NEO4J_AUTH=user/x` (the user stays), `-Dsonar.login=<token>`;
  a secret's name given a placeholder, a reference or a path there overrules a general guess.

A command inside an alias, an assignment or backticks (`alias x='tool -p X'`) is read too.

Where the rules live: `command_rules` (flags, `NAME=value` words, user:password arguments, what
a flag is known not to take), `command_positional` (positional secrets, literals fed to stdin),
`command_values` (whether a found value can be a secret), `shellwords` (the words and commands of
a line). `redact` imports the rules; this module sits above it, so nothing imports back.
"""

from __future__ import annotations

from functools import lru_cache

from .command_rules import SECRET_FLAGS, scan_commands
from .redact import redact_with

#: command lines up to this long are remembered: people run the same few commands again and again
#: (the tests, the build, `git status`), and reading one line as shell words costs tens of microseconds
CACHED_CHARS = 512


def redact_command(text: str) -> str:
    """`text`, a command line (or several), with every recognised secret replaced by a typed
    marker: the command rules on every line, and everything `redact` finds. The same text always
    gives the same answer (the rules read nothing but the text), so a short one is looked up."""
    return _remembered(text) if len(text) <= CACHED_CHARS else redact_with(text, whole_commands=True)


@lru_cache(maxsize=4096)
def _remembered(text: str) -> str:
    return redact_with(text, whole_commands=True)


__all__ = ["redact_command", "scan_commands", "SECRET_FLAGS"]
