#!/usr/bin/env python3
"""Start and stop a real js-ipfs node (npm `ipfs` 0.66.1) for tests and demos.

By default the node is offline and listens on 127.0.0.1 only: its RPC API on the port you choose,
swarm and gateway on ephemeral ports; no bootstrap peers, no MDNS, no preload to public servers
(`jsipfs daemon --offline --enable-preload=false`). It is a real IPFS node (UnixFS importer,
blockstore, pins), so CIDs and errors are those a user's node gives.

Given a swarm address (`--swarm /ip4/10.0.0.5/tcp/4001`, a host's own network address) the node is
online instead: it listens for peers there, dials the `--peer` multiaddrs it is given (its
bootstrap list; nothing public), exchanges blocks with them over bitswap and runs gossipsub
pubsub. Its API stays on 127.0.0.1: only the swarm port faces the network.

    python tools/ipfs_node.py start --repo /tmp/ipfs-repo --port 5101   # prints the API address
    python tools/ipfs_node.py start --repo R --port 5101 --swarm /ip4/10.0.0.5/tcp/4001 \
        --peer /ip4/10.0.0.6/tcp/4001/p2p/12D3Koo...   # online, one bootstrap peer
    python tools/ipfs_node.py stop --repo /tmp/ipfs-repo

From Python: `node = start(repo, port)` ... `stop(node.pid)`. `start` writes the daemon's pid to
<repo>/daemon.pid and its output to <repo>/daemon.log; `stop` signals that pid only.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JSIPFS = ROOT / "node_modules" / ".bin" / "jsipfs"
POLYFILL = ROOT / "tools" / "ipfs" / "polyfill.cjs"
API_PORTS = range(5101, 5200)  # this project's IPFS API ports (5001 stays free for a user's node)


@dataclass(frozen=True)
class IpfsNode:
    pid: int
    port: int
    repo: Path
    peer_id: str = ""
    swarm: str = ""  # the multiaddr peers dial, with /p2p/<peer id>; "" when offline

    @property
    def api(self) -> str:
        """The RPC API as the multiaddr ipfshttpclient takes."""
        return f"/ip4/127.0.0.1/tcp/{self.port}/http"


def _env(repo: Path) -> dict[str, str]:
    env = dict(os.environ, IPFS_PATH=str(repo))
    env["NODE_OPTIONS"] = f'{env.get("NODE_OPTIONS", "")} --require "{POLYFILL}"'.strip()
    return env


def _configure(repo: Path, port: int, swarm: str | None = None, peers: tuple[str, ...] = ()) -> dict:
    path = repo / "config"
    config = json.loads(path.read_text())
    config["Addresses"].update(
        API=f"/ip4/127.0.0.1/tcp/{port}",
        Gateway="/ip4/127.0.0.1/tcp/0",
        RPC="/ip4/127.0.0.1/tcp/0",
        Swarm=[swarm or "/ip4/127.0.0.1/tcp/0"],
        Announce=[],
        Delegates=[],
    )
    config["Bootstrap"] = list(peers)
    config["Pubsub"] = {"Enabled": True, "Router": "gossipsub"}
    config.setdefault("Discovery", {}).setdefault("MDNS", {})["Enabled"] = False
    config["Discovery"].setdefault("webRTCStar", {})["Enabled"] = False
    path.write_text(json.dumps(config, indent=2))
    return config


def _clear_dead_daemon(repo: Path) -> None:
    """A daemon killed outright (SIGKILL, a crash) leaves its repo locked (the repo.lock folder)
    and its `api` file behind, and js-ipfs refuses to start on that repo ("Lock already being
    held"): both go when the pid it recorded is no longer alive."""
    import shutil

    try:
        pid = int((repo / "daemon.pid").read_text())
        os.kill(pid, 0)
        return  # alive: its lock is real
    except (FileNotFoundError, ValueError, ProcessLookupError):
        pass
    shutil.rmtree(repo / "repo.lock", ignore_errors=True)
    (repo / "api").unlink(missing_ok=True)


def _in_use(port: int) -> bool:
    """Something accepts connections on 127.0.0.1:`port` (a busy node still does, when its API
    would not answer in time)."""
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def free_api_port(first: int = 0) -> int:
    """A port of API_PORTS that nothing listens on, looking from its `first`-th on (concurrent
    starters, e.g. test workers, give different `first`s: a free port is only free until bound)."""
    ports = list(API_PORTS)
    for port in ports[first % len(ports):] + ports[:first % len(ports)]:
        if not _in_use(port):
            return port
    raise RuntimeError(f"every IPFS API port in {ports[0]}-{ports[-1]} is taken")


def _ready(port: int) -> bool:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v0/id", method="POST")
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def connect(port: int, peer: str, *, timeout: float = 10.0) -> bool:
    """Asks the node on 127.0.0.1:`port` to dial `peer` (a multiaddr ending /p2p/<id>); whether
    it is connected. js-ipfs does not dial its configured bootstrap list by itself when it is the
    only source of peers, so `start` dials them with this."""
    from urllib.parse import quote

    url = f"http://127.0.0.1:{port}/api/v0/swarm/connect?arg={quote(peer, safe='')}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def start(repo: Path | str, port: int, *, swarm: str | None = None, peers: tuple[str, ...] = (),
          ready_timeout: float = 60.0) -> IpfsNode:
    """Initialise `repo` if it is new, configure it for 127.0.0.1:`port`, start the daemon and
    wait until its API answers. Raises RuntimeError (with the daemon's log) if it does not.
    With `swarm` (a /ip4/<address>/tcp/<port> multiaddr) the node runs online, listening there
    and bootstrapping from `peers`."""
    repo = Path(repo).resolve()
    if port not in API_PORTS:
        raise ValueError(f"IPFS API port {port} is outside this project's range 5101-5199")
    if not JSIPFS.exists():
        raise RuntimeError(f"{JSIPFS} is missing: run `make setup` (npm install) first")
    if _in_use(port):
        raise RuntimeError(f"port {port} is already in use (an IPFS node or another program): stop it or pick "
                           f"another port")
    env = _env(repo)
    if not (repo / "config").exists():
        repo.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(JSIPFS), "init", "--profile", "test"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    _clear_dead_daemon(repo)
    config = _configure(repo, port, swarm, tuple(peers))
    log = open(repo / "daemon.log", "ab")
    with log:
        process = subprocess.Popen(
            [str(JSIPFS), "daemon", "--enable-preload=false", *([] if swarm else ["--offline"])],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in a test run must not kill it before stop() does
        )
    (repo / "daemon.pid").write_text(f"{process.pid}\n")
    deadline = time.monotonic() + ready_timeout
    while not _ready(port):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process.pid)
            tail = (repo / "daemon.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"js-ipfs daemon did not become ready on 127.0.0.1:{port}:\n{tail}")
        time.sleep(0.1)
    for peer in peers:
        connect(port, peer)  # a peer not up yet dials this node when it starts, or later
    peer_id = config["Identity"]["PeerID"]
    return IpfsNode(pid=process.pid, port=port, repo=repo, peer_id=peer_id,
                    swarm=f"{swarm}/p2p/{peer_id}" if swarm else "")


def stop(pid: int, *, timeout: float = 15.0) -> None:
    """SIGTERM the daemon `pid` (SIGKILL after `timeout` s) and reap it if it is our child."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:  # not our child: poll for its exit instead
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("--repo", type=Path, required=True, help="the node's repository folder")
    parser.add_argument("--port", type=int, default=5101, help="RPC API port (5101-5199)")
    parser.add_argument("--swarm", help="run online, listening for peers on this multiaddr (/ip4/<address>/tcp/<port>)")
    parser.add_argument("--peer", action="append", default=[],
                        help="a bootstrap peer's multiaddr (repeatable; with --swarm)")
    args = parser.parse_args(argv)
    pidfile = args.repo / "daemon.pid"
    if args.action == "start":
        node = start(args.repo, args.port, swarm=args.swarm, peers=tuple(args.peer))
        print(node.api)
        if node.swarm:
            print(node.swarm)
    else:
        if not pidfile.exists():
            print(f"no {pidfile}: nothing to stop", file=sys.stderr)
            return 1
        stop(int(pidfile.read_text()))
        pidfile.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
