"""Which process listens on a local TCP port (Linux /proc). A server started on a port that was
free a moment ago may lose it to another process (a parallel test worker, a second node): a
client that connects then reaches the other process, so a start-up wait checks the owner too."""

from __future__ import annotations

import os
from pathlib import Path


def _listening_inodes(port: int) -> set[str]:
    """Socket inodes listening on TCP `port` (Linux /proc/net; empty elsewhere)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def _socket_inodes(pid: int) -> set[str] | None:
    """The inodes of the sockets process `pid` holds open; None where /proc cannot tell."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    inodes = set()
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    return inodes


def owns_port(pid: int, port: int) -> bool | None:
    """Whether process `pid` holds the listening socket of `port`; None where /proc cannot tell."""
    held = _socket_inodes(pid)
    return None if held is None else bool(held & _listening_inodes(port))


def listeners(port: int) -> list[int]:
    """The pids holding a listening socket on TCP `port` that /proc lets this user see."""
    inodes = _listening_inodes(port)
    if not inodes:
        return []
    return [pid for pid in (int(p) for p in os.listdir("/proc") if p.isdigit())
            if (_socket_inodes(pid) or set()) & inodes]
