"""`lostcards serve`: the table, the review and the rule page in a browser, served on this machine only."""
from __future__ import annotations

import ipaddress
import socket
import threading
import webbrowser
from pathlib import Path

import click

from lostcards.cli.common import Count
from lostcards.errors import BadArgument


def loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one the system picks); one clear line if taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as e:
        sock.close()
        raise BadArgument(f"cannot listen on {host}:{port}: {e.strerror or e} (--port 0 picks a free port)") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _check_records(folder: Path) -> None:
    """--records can hold the rounds' records: created if need be and written to once, now, so a folder that
    can never be used is one line at the start, not a failure on every round of the page."""
    import tempfile

    from lostcards.cli.status import os_failure
    from lostcards.errors import shown_path
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise BadArgument(f"--records {shown_path(folder)} cannot hold the records: {os_failure(e)}") from None


@click.command("serve")
@click.option("--port", type=Count(0, 65535), default=0, show_default=True,
              help="The port to listen on (0: a free port, printed).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; anything but loopback needs --allow-remote.")
@click.option("--allow-remote", is_flag=True,
              help="Allow a --host other than loopback (anyone who reaches it may play and run batches).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in a browser.")
@click.option("--records", type=click.Path(file_okay=False), default="runs/web", show_default=True,
              help="Where each round's record is written (after every turn).")
@click.option("--bot", "bots", multiple=True, metavar="SPEC",
              help="Add a bot of your own to the page's menu (module:name, or a registered bot with parameters); "
                   "repeatable.")
def serve(port, host, allow_remote, no_browser, records, bots):
    """Play any bot in a browser, see your costliest moves, try a rule change (docs/web.md).

    The server listens on 127.0.0.1 only, on a free port unless --port is
    given, prints its address and opens the page.  Ctrl-C stops it; every
    round's record is already saved (after every turn) in --records.
    """
    if not loopback(host) and not allow_remote:
        raise BadArgument(f"--host {host} is not a loopback address: the server would be reachable from other "
                          "machines; add --allow-remote if that is meant")
    import uvicorn

    from lostcards.policies import names, resolve
    from lostcards.web.app import LOOPBACK_HOSTS, create_app
    menu = names()
    for spec in bots:
        resolve(spec)                    # a bad module or parameter: one line now, not on the page
        if spec not in menu:
            menu.append(spec)
    _check_records(Path(records))
    sock = bind(host, port)
    shown = sock.getsockname()[1]
    url_host = host if ":" not in host else f"[{host.strip('[]')}]"
    url = f"http://{url_host}:{shown}/"
    hosts = None if allow_remote else LOOPBACK_HOSTS
    app = create_app(Path(records), menu, hosts)
    click.echo(f"lostcards serve: {url}  (records in {records}; Ctrl-C stops)", err=False)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    if not no_browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])      # Ctrl-C: uvicorn finishes the requests under way, then stops
    except KeyboardInterrupt:
        click.echo(f"lostcards serve: stopped; the rounds' records are in {records}")
        raise                            # exit status 130, as every command's Ctrl-C
    finally:
        sock.close()
    click.echo(f"lostcards serve: stopped; the rounds' records are in {records}")
