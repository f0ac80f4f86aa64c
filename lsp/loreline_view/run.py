"""`python -m loreline_view`: serve the viewer on loopback and print its address.

Binds 127.0.0.1 only (there is no option to bind anything else); the port is the one asked
for, else a free one the system picks. The address carries this run's token; the browser is
opened on it unless `--no-browser`.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import socket
import sys
import webbrowser
from pathlib import Path

HOST = "127.0.0.1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="loreline view")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="print the address, open no browser")
    parser.add_argument("--store", help="a store file other than this home's")
    parser.add_argument("--page", default="/", help="the page to open (e.g. /m/12)")
    args = parser.parse_args(argv)
    import uvicorn

    from .app import build

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, args.port))
    except OSError as err:
        print(f"loreline view: cannot listen on {HOST}:{args.port}: {err.strerror or err}", file=sys.stderr)
        return 2
    sock.listen(128)  # connections made as soon as the address is printed wait for the server
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    app, viewer = build(Path(args.store) if args.store else None, token, port)
    page = args.page if args.page.startswith("/") else "/" + args.page
    address = f"http://{HOST}:{port}{page}?token={token}"
    print(f"Loreline viewer: {address}", flush=True)
    print("Press Ctrl-C to stop it.", flush=True)
    if not args.no_browser:
        webbrowser.open(address)
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        viewer.close()
    return 0
