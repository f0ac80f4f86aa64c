"""`loreline config get|set|unset|list|path`: read and edit the settings file.

Every command reads the file first (`check_at_start`): one that is not valid TOML stops it
with one line naming the file, the line and the column; each key or table no setting
defines is named once on stderr with the closest known one (`status` lists them instead).
"""

from __future__ import annotations

import argparse
import os
import sys

from .common import emit_json


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("config", help="show or change settings (one TOML file; comments are kept)")
    inner = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = inner.add_parser("get", help="print one setting's value")
    p.add_argument("key", metavar="KEY")
    p.set_defaults(func=run_get)
    p = inner.add_parser("set", help="change one setting (the value is checked against its type)")
    p.add_argument("key", metavar="KEY")
    p.add_argument("value", metavar="VALUE")
    p.set_defaults(func=run_set)
    p = inner.add_parser("unset", help="remove one setting from the file (it takes its default again)")
    p.add_argument("key", metavar="KEY")
    p.set_defaults(func=run_unset)
    p = inner.add_parser("list", help="every setting with its value, source and help")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_list)
    p = inner.add_parser("path", help="print where the settings file is")
    p.set_defaults(func=run_path)


def run_get(args: argparse.Namespace) -> int:
    from ..api import settings as config

    value = config.load().get(args.key)
    print(str(value).lower() if isinstance(value, bool) else value)
    return 0


def run_set(args: argparse.Namespace) -> int:
    from ..api import settings as config

    value = config.set_value(args.key, args.value)
    print(f"{args.key} = {config.describe(value)}  (in {config.load().path})")
    return 0


def run_unset(args: argparse.Namespace) -> int:
    from ..api import settings as config

    path = config.config_path()
    if config.unset(args.key, path):
        default = f"; it takes its default, {config.describe(config.SCHEMA[args.key].default)}" \
            if args.key in config.SCHEMA else ""
        print(f"Removed {args.key} from {path}{default}.")
    else:
        print(f"{args.key} is not set in {path}; nothing changed.")
    return 0


def check_at_start(args: argparse.Namespace) -> None:
    """Read the settings file before any command runs: ConfigError when it does not parse;
    each unknown key or table named once on stderr (not by `status`, which lists them). Without
    a settings file there is nothing to read, and the settings' modules are not imported."""
    from ..home import config_path

    try:
        os.stat(config_path())
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError:
        pass  # `unknown` says what is wrong with it
    from ..api import settings as config

    if args.command == "status":
        config.unknown()  # still stops on a file that does not parse
        return
    path = config.config_path()
    for found in config.unknown(path):
        if getattr(args, "action", None) == "unset" and found.key == args.key:
            continue
        print(f"loreline: {found.line(path)}", file=sys.stderr)


def run_list(args: argparse.Namespace) -> int:
    from ..api import settings as config

    cfg = config.load()
    if args.json:
        emit_json({key: {"value": cfg.get(key), "source": cfg.source(key), "default": setting.default,
                         "help": setting.help} for key, setting in sorted(config.SCHEMA.items())})
        return 0
    rows = [(f"{key} = {config.describe(cfg.get(key))}", cfg.source(key), setting.help)
            for key, setting in sorted(config.SCHEMA.items())]
    width = max(len(row[0]) for row in rows)
    for assignment, source, help_text in rows:
        mark = "set " if source == "file" else "    "
        print(f"{assignment:<{width}}  {mark}# {help_text}")
    print(f"\n(file: {cfg.path}; `set` marks values the file sets, the rest are defaults)")
    return 0


def run_path(args: argparse.Namespace) -> int:
    from ..api.settings import config_path

    print(config_path())
    return 0
