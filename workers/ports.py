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


def owns_port(pid: int, port: int) -> bool | None:
    """Whether process `pid` holds the listening socket of `port`; None where /proc cannot tell."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    inodes = _listening_inodes(port)
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


def listeners(port: int) -> list[int]:
    """The pids holding a listening socket on TCP `port` that /proc lets this user see."""
    inodes = _listening_inodes(port)
    found = []
    if not inodes:
        return found
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in inodes:
                found.append(pid)
                break
    return found
