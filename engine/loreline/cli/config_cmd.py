"""`loreline config get|set|list|path`: read and edit the settings file."""

from __future__ import annotations

import argparse

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
    p = inner.add_parser("list", help="every setting with its value, source and help")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_list)
    p = inner.add_parser("path", help="print where the settings file is")
    p.set_defaults(func=run_path)


def run_get(args: argparse.Namespace) -> int:
    from .. import config

    value = config.load().get(args.key)
    print(str(value).lower() if isinstance(value, bool) else value)
    return 0


def run_set(args: argparse.Namespace) -> int:
    from .. import config

    value = config.set_value(args.key, args.value)
    print(f"{args.key} = {config.describe(value)}  (in {config.load().path})")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from .. import config

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
    from .. import home

    print(home.config_path())
    return 0
