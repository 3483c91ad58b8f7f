"""The services a host runs, each started in the host's namespace and stopped by its pid: anvil
(the chain host), an IPFS node (js-ipfs through tools/ipfs_node.py), a redis-server."""
from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from workers.localnet.chain import ROOT, anvil_binary
from workers.localnet.hosts.netns import Host, HostsError

IPFS_API_PORT = 5101  # every host's own 127.0.0.1: the same port on each
SWARM_PORT = 4001
REDIS_PORT = 6379
RPC_PORT = 8545


def ipfs_tool():
    """tools/ipfs_node.py as a module (it is a script, not part of the package)."""
    module = sys.modules.get("ipfs_node")
    if module is None:
        spec = importlib.util.spec_from_file_location("ipfs_node", ROOT / "tools" / "ipfs_node.py")
        module = sys.modules["ipfs_node"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def stop_pid(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM `proc`, SIGKILL after `timeout` s; reaped."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_tcp(address: str, port: int, proc: subprocess.Popen, what: str, timeout: float = 60.0) -> None:
    """Until `address:port` accepts connections (from this process's namespace)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise HostsError(f"{what} exited with {proc.returncode}")
        with socket.socket() as probe:
            probe.settimeout(1.0)
            if probe.connect_ex((address, port)) == 0:
                return
        if time.monotonic() > deadline:
            raise HostsError(f"{what} did not listen on {address}:{port} within {timeout:g} s")
        time.sleep(0.05)


def start_anvil(host: Host, log: Path, cache: Path) -> subprocess.Popen:
    """anvil on the chain host's address (chain 31337, prague, as workers.localnet.chain.Anvil),
    the old states it evicts from memory kept in `cache` (the caller removes it after the stop)."""
    proc = host.popen([anvil_binary(), "--host", host.address, "--port", str(RPC_PORT), "--chain-id", "31337",
                       "--hardfork", "prague", "--balance", "1000000", "--cache-path", str(cache)], log=log)
    wait_tcp(host.address, RPC_PORT, proc, f"anvil on {host.name}")
    return proc


@dataclass
class IpfsDaemon:
    host: Host
    repo: Path
    pid: int
    peer_id: str
    swarm: str  # /ip4/<host address>/tcp/4001/p2p/<peer id>: what the other hosts dial
    api: str = f"/ip4/127.0.0.1/tcp/{IPFS_API_PORT}/http"  # on the host's own loopback

    def stop(self) -> None:
        ipfs_tool().stop(self.pid)

    def pause(self) -> None:
        """Freezes the daemon (SIGSTOP): it holds its connections and answers nothing, as a hung node."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)


def start_ipfs(hosts: list[tuple[Host, Path]], timeout: float = 180.0) -> list[IpfsDaemon]:
    """An online IPFS node on each (host, repo), started together (each takes seconds), swarm on
    the host's address, API on its 127.0.0.1; not yet connected to each other (SwarmPeers does it)."""
    starting = []
    for host, repo in hosts:
        repo.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, str(ROOT / "tools" / "ipfs_node.py"), "start", "--repo", str(repo),
                "--port", str(IPFS_API_PORT), "--swarm", f"/ip4/{host.address}/tcp/{SWARM_PORT}"]
        starting.append((host, repo, subprocess.Popen(["ip", "netns", "exec", host.ns, *argv], text=True,
                                                      env=host.environ(), stdout=subprocess.PIPE,
                                                      stderr=subprocess.STDOUT)))
    daemons, failed = [], []
    for host, repo, proc in starting:
        out, _ = proc.communicate(timeout=timeout)
        lines = out.strip().splitlines()
        if proc.returncode != 0 or not lines or "/p2p/" not in lines[-1]:
            failed.append(f"{host.name}: {out.strip()[-800:]}")
            continue
        swarm = lines[-1].strip()
        daemons.append(IpfsDaemon(host, repo, int((repo / "daemon.pid").read_text()), swarm.rsplit("/", 1)[1], swarm))
    if failed:
        for daemon in daemons:
            daemon.stop()
        raise HostsError("IPFS nodes did not start:\n" + "\n".join(failed))
    return daemons


@dataclass
class RedisServer:
    """A redis-server on a host's 127.0.0.1:6379 with its data (append-only file) in `data_dir`."""

    host: Host
    data_dir: Path
    proc: subprocess.Popen | None = None
    url: str = f"redis://127.0.0.1:{REDIS_PORT}/0"

    def start(self, timeout: float = 20.0) -> RedisServer:
        from workers.node.processes.redis_service import redis_binary

        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = self.host.popen(
            [redis_binary(), "--port", str(REDIS_PORT), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
             "--appendfsync", "everysec", "--dir", str(self.data_dir), "--daemonize", "no", "--protected-mode", "yes"],
            log=self.data_dir / "redis.log")
        deadline = time.monotonic() + timeout
        while not self.host.call(_pings, self.url):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise HostsError(f"redis-server on {self.host.name} did not start (log {self.data_dir / 'redis.log'})")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            stop_pid(self.proc)

    def client_call(self, fn):
        """fn(redis client) in the host's namespace; the client closed after."""
        import redis

        def run():
            client = redis.Redis.from_url(self.url)
            try:
                return fn(client)
            finally:
                client.close()

        return self.host.call(run)


def _pings(url: str) -> bool:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)
    try:
        return bool(client.ping())
    except (redis.ConnectionError, redis.TimeoutError):
        return False
    finally:
        client.close()
