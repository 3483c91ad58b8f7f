"""The explorer's read-only HTTP server (standard library ThreadingHTTPServer): GET / is the page
(static/index.html: plain JS that renders the JSON API, with no external assets), GET /api/...
the JSON API (workers.explorer.api). Anything but GET and HEAD is refused with 405."""

from __future__ import annotations

import json
import logging
import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from workers.explorer.api import ExplorerApi, NotFound

PAGE = Path(__file__).resolve().parent / "static" / "index.html"
log = logging.getLogger(__name__)

ROUTES = [
    (re.compile(r"/api/network"), lambda api: api.network()),
    (re.compile(r"/api/tasks/(\d{1,18})"), lambda api, task_id: api.task(int(task_id))),
    (re.compile(r"/api/tasks/(\d{1,18})/curve"), lambda api, task_id: api.curve(int(task_id))),
    (re.compile(r"/api/nodes/(0x[0-9a-fA-F]{40})"), lambda api, address: api.node(address)),
]


def route(api: ExplorerApi, path: str):
    """(status, JSON-able body) for an API path."""
    for pattern, answer in ROUTES:
        match = pattern.fullmatch(path)
        if match:
            try:
                with api.lock:
                    return HTTPStatus.OK, answer(api, *match.groups())
            except NotFound as exc:
                return HTTPStatus.NOT_FOUND, {"error": str(exc)}
    return HTTPStatus.NOT_FOUND, {"error": f"no such API path {path!r} (see SPECIFICATION.md, Explorer)"}


LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _host_name(header: str | None) -> str:
    """The name of a Host header without its port ("[::1]:8850" -> "[::1]")."""
    host = (header or "").strip().lower()
    if host.startswith("["):
        return host[:host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def handler_for(api: ExplorerApi, page: bytes, loopback_only: bool = True):
    """The request handler. `loopback_only` (a server bound to a loopback address): requests must
    name a loopback host, so that a web page whose DNS name points at 127.0.0.1 (DNS rebinding)
    cannot read the API through the user's browser."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "decentrl-explorer"

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if loopback_only and _host_name(self.headers.get("Host")) not in LOOPBACK_NAMES:
                self._send(HTTPStatus.FORBIDDEN, b'{"error": "the explorer answers requests for 127.0.0.1 or '
                           b'localhost only"}', "application/json")
            elif path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
            elif path.startswith("/api/"):
                try:
                    status, body = route(api, path)
                except Exception as exc:  # noqa: BLE001 - the chain or store failed: say so, keep serving
                    # one line: an open page asks every few seconds while the chain is down
                    log.warning("explorer: %s failed: %s: %s", path, type(exc).__name__, exc)
                    log.debug("explorer: %s failed", path, exc_info=True)
                    status, body = HTTPStatus.BAD_GATEWAY, {"error": f"{type(exc).__name__}: {exc}"}
                self._send(status, json.dumps(body).encode(), "application/json")
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")

        do_HEAD = do_GET  # the same status and headers; _send writes no body

        def _refuse(self):
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, b'{"error": "the explorer is read-only: GET only"}',
                       "application/json", allow="GET, HEAD")

        def __getattr__(self, name):  # do_POST, do_OPTIONS, any other method: 405
            if name.startswith("do_"):
                return self._refuse
            raise AttributeError(name)

        def _send(self, status, body: bytes, content_type: str, allow: str | None = None):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            # Everything the page needs is inline or from this server.
            self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                                                        "script-src 'self' 'unsafe-inline'; img-src 'self' data:")
            self.send_header("X-Content-Type-Options", "nosniff")
            if allow:
                self.send_header("Allow", allow)
            self.end_headers()
            if self.command != "HEAD":
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the browser left (page closed or reloaded)
                    pass

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            log.debug("explorer: " + format, *args)

    return Handler


class ExplorerServer:
    """The server bound to host:port (port 0: a free one), serving in a background thread from
    `start()` or in the caller's from `serve_forever()`."""

    def __init__(self, api: ExplorerApi, host: str = "127.0.0.1", port: int = 8850):
        import ipaddress

        self.api = api
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host.lower() == "localhost"
        self.httpd = ThreadingHTTPServer((host, port), handler_for(api, PAGE.read_bytes(), loopback_only=loopback))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> ExplorerServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="explorer", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()
