"""Secrets a command takes as a plain argument, or reads from a literal fed to its stdin.

* **positional secrets of known commands**: `htpasswd -b file user X`, `htpasswd -nb user X`,
  `rabbitmqctl add_user user X`, `wpa_passphrase ssid X`, `create_ap ... ssid X`,
  `idevicebackup2 encryption on X`, `vault login X`, `pulumi config set --secret key X`,
  `npm config set //host/:_authToken X`, `netsh ... key=X`, `networksetup -setairportnetwork dev
  ssid X`, the key an OTP generator is given (`oathtool --totp --base32 X`), `mysqladmin
  password X`, `mosquitto_passwd -b file user X`, `net use \\\\host\\share X`, `net user name X`,
  `mc alias set name url key X` (and `mc config host add …`);
* **a generated word after a credential subcommand**: `<tool> token X`, `<tool> register X`,
  `ngrok authtoken X`;
* **a literal piped or fed to a command that reads a secret from stdin**: `echo X | docker
  login --password-stdin`, `yes X | passwd`, `gh auth login --with-token <<< X`,
  `echo -n user:X | base64` (a Basic header in the making), `echo X | sudo -S cmd`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .command_values import add, user_secret, value_word
from .context import key_shaped, looks_random
from .shellwords import Span, Word, basename

if TYPE_CHECKING:
    from collections.abc import Callable

    Rule = Callable[[str, list[Word], int, list[Word], list[Span]], None]

CREDENTIAL_WORDS = frozenset("token login register encrypt unlock auth apikey api-key password passwd secret "
                             "passphrase authtoken add-authtoken".split())
STDIN_READERS = ("--password-stdin", "--with-token", "--token-stdin", "chpasswd", "passwd", "--stdin")
# words before a command that are not the command (`RUN echo x | chpasswd`, `sudo echo`)
_LEADERS = frozenset("$ # > % run sudo time exec nohup env".split())


def positional(text: str, seg: list[Word], names: list[str], spans: list[Span]) -> None:
    """The positional secrets of the command `seg` (its words' basenames are `names`)."""
    plain = [w for w in seg if not w[2].startswith("-")]
    for before, word in zip(plain[1:], plain[2:]):  # `<tool> token X`, `<tool> register X`: a generated X
        value = word[2].strip("'\"")
        if before[2].lower().lstrip("-") in CREDENTIAL_WORDS and "=" not in value and (
                key_shaped(value) or looks_random(value)):
            value_word(text, word, spans, numbers=False)
    for index, name in enumerate(names):
        rule = _POSITIONAL.get(name)
        if rule is not None:
            rule(text, seg, index, plain, spans)
            return
        if name.endswith((":_authtoken", ":_password", ":_auth")) and index + 1 < len(seg):
            value_word(text, seg[index + 1], spans)
            return


def _nth_after(text: str, plain: list[Word], name_word: Word, n: int, spans: list[Span]) -> None:
    after = [w for w in plain if w[0] > name_word[0]]
    if len(after) > n:
        value_word(text, after[n], spans, numbers=False)


def _htpasswd(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    """`htpasswd -b file user X`, `htpasswd -nb user X`, `mosquitto_passwd -b file user X`."""
    flags = "".join(w[2][1:] for w in seg[index + 1:] if w[2].startswith("-") and not w[2].startswith("--"))
    if "b" in flags:
        _nth_after(text, plain, seg[index], 1 if "n" in flags else 2, spans)


def _mysqladmin(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    """`mysqladmin -u root password X`: the `password` command sets X as the new password."""
    after = [w for w in plain if w[0] > seg[index][0]]
    for word, value in zip(after, after[1:]):
        if word[2] == "password" and _after_value_flag(seg, word) is False:
            value_word(text, value, spans, numbers=False)
            return


def _after_value_flag(seg: list[Word], word: Word) -> bool:
    """Whether `word` is the value of the flag before it (`-u password`), not an argument."""
    i = seg.index(word)
    return i > 0 and seg[i - 1][2] in ("-u", "-h", "-P", "-S", "--user", "--host", "--port", "--socket")


def _net(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    """`net use [Z:|*] \\\\host\\share X /user:name`, `net user name X /add`: the plain word
    after the share (or the user's name) is the password (`*` asks for it)."""
    after = [w for w in seg[index + 1:] if not w[2].startswith("/")]
    if not after or after[0][2].lower() not in ("use", "user"):
        return
    args = after[1:]
    if any("<" in w[2] for w in args):
        return  # `net use \\\\<IP address>\\<share> /u:<user>`: a template
    if after[0][2].lower() == "use":
        shares = [i for i, w in enumerate(args) if w[2].strip("'\"").startswith("\\\\")]
        target = shares[0] + 1 if shares else len(args)
    else:
        target = 1
    if target < len(args) and args[target][2] != "*":
        value_word(text, args[target], spans, numbers=False)


# mc's options that take a value: the words after them are not the alias, URL or keys
_MC_VALUED = frozenset("--api --path --lookup -api".split())


def _mc(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    """`mc alias set NAME URL ACCESS SECRET` (and its older spelling `mc config host add`):
    the fourth argument is the secret key."""
    words = [w[2] for w in seg[index + 1:]]
    for lead in (["alias", "set"], ["config", "host", "add"]):
        if words[:len(lead)] == lead:
            args = [w for i, w in enumerate(seg[index + 1 + len(lead):], index + 1 + len(lead))
                    if not w[2].startswith("-") and seg[i - 1][2] not in _MC_VALUED]
            if len(args) >= 4:
                value_word(text, args[3], spans, numbers=False)
            return


def _rabbitmq(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    after = [w for w in plain if w[0] > seg[index][0]]
    if after and after[0][2] in ("add_user", "change_password") and len(after) > 2:
        value_word(text, after[2], spans, numbers=False)


def _last_of_three(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    after = [w for w in plain if w[0] > seg[index][0]]
    if len(after) >= 3 or (basename(seg[index][2]) == "wpa_passphrase" and len(after) == 2):
        value_word(text, after[-1], spans, numbers=False)


def _after_words(*words: str) -> Rule:
    def rule(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
        after = [w for w in plain if w[0] > seg[index][0]]
        if len(after) > len(words) and [w[2] for w in after[:len(words)]] == list(words) and (
                "=" not in after[len(words)][2]):
            value_word(text, after[len(words)], spans, numbers=False)
    return rule


def _pulumi(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    for i, word in enumerate(seg):
        if word[2] == "--secret" and i + 2 < len(seg) and not seg[i + 2][2].startswith("-"):
            value_word(text, seg[i + 2], spans, numbers=False)


# oathtool's options that take a value: the words after them are not the key
_OATH_VALUED = frozenset("-d --digits -w --window -s --time-step-size -S --start-time -N --now -c --counter".split())


def _otp_key(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    """`oathtool --totp --base32 KEY [OTP]`: an OTP generator's arguments are the shared key."""
    for i in range(index + 1, len(seg)):
        word = seg[i][2]
        if not word.startswith("-") and seg[i - 1][2] not in _OATH_VALUED:
            value_word(text, seg[i], spans, numbers=False)


def _wifi_join(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    """`networksetup -setairportnetwork DEVICE NETWORK PASSWORD`: joining a Wi-Fi network, the
    passphrase comes after the network's name (as with `wpa_passphrase` and `create_ap`)."""
    for i, word in enumerate(seg):
        if word[2].lower() == "-setairportnetwork" and i + 3 < len(seg):
            value_word(text, seg[i + 3], spans, numbers=False)


def _netsh(text: str, seg: list[Word], index: int, plain: list[Word], spans: list[Span]) -> None:
    for w_start, w_end, word in seg[index + 1:]:
        if word.lower().startswith("key=") and len(word) > 4:
            add(text, w_start + 4, w_end, spans, unquoted=True)


_POSITIONAL: dict[str, Rule] = {
    "htpasswd": _htpasswd, "rabbitmqctl": _rabbitmq, "wpa_passphrase": _last_of_three, "create_ap": _last_of_three,
    "idevicebackup2": _after_words("encryption", "on"), "vault": _after_words("login"), "pulumi": _pulumi,
    "netsh": _netsh, "oathtool": _otp_key, "networksetup": _wifi_join, "mosquitto_passwd": _htpasswd,
    "mysqladmin": _mysqladmin, "mariadb-admin": _mysqladmin, "net": _net, "net.exe": _net, "mc": _mc,
    "mcli": _mc,
}


def stdin_literal(text: str, seg: list[Word], following: list[Word], spans: list[Span]) -> None:
    """`echo X | docker login --password-stdin`, `yes X | passwd`, `... --with-token <<< X`."""
    words = [w[2] for w in seg]
    if "<<<" in words and any(w.startswith(STDIN_READERS) for w in words):
        here = words.index("<<<")
        if here + 1 < len(seg):
            value_word(text, seg[here + 1], spans, numbers=False)
    encoder = bool(following) and basename(following[0][2]) in ("base64", "openssl")
    echo = [i for i, w in enumerate(seg) if basename(w[2]) in ("echo", "printf")]
    if encoder and echo:  # `echo -n user:secret | base64`: a Basic header
        literal = [w for w in seg[echo[-1] + 1:] if not w[2].startswith("-")]
        if literal and ":" in literal[-1][2]:
            user_secret(text, literal[-1], spans)
        return
    first = next((i for i, w in enumerate(seg) if w[2].lower() not in _LEADERS), len(seg))
    if len(seg) >= first + 2 and basename(seg[first][2]) in ("echo", "yes", "printf") and following and (any(
            w[2].startswith(STDIN_READERS) or basename(w[2]) in ("chpasswd", "passwd") for w in following)
            or _sudo_stdin(following)):
        literal = [w for w in seg[first + 1:] if not w[2].startswith("-")]
        if literal:
            value_word(text, literal[-1], spans, numbers=False, user_pass=any(
                basename(w[2]) == "chpasswd" for w in following))


def _sudo_stdin(command: list[Word]) -> bool:
    """`sudo -S cmd`: sudo reads the password from stdin (`echo X | sudo -S cmd`)."""
    names = [w[2] for w in command]
    if not names or basename(names[0]) != "sudo":
        return False
    for word in names[1:]:
        if not word.startswith("-"):
            return False
        if word == "--stdin" or (not word.startswith("--") and "S" in word[1:]):
            return True
    return False


__all__ = ["CREDENTIAL_WORDS", "STDIN_READERS", "positional", "stdin_literal"]
