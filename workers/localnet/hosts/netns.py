"""Hosts on this machine: Linux network namespaces on one bridged LAN.

A `Lan` makes a hub namespace holding a bridge, and per host a namespace whose `eth0` (a veth)
has an address of the LAN's /24 and whose other end is a port of the bridge. The namespace this
process runs in (the driver: the harness itself) gets a port too (address .254), so that it can
reach the hosts' network-facing services (the chain's RPC, swarm ports); what a host keeps on its
own 127.0.0.1 (its IPFS API, its Redis) the driver reaches from a thread that joined that
namespace (`in_netns`). Names and the subnet derive from the process id, so two runs on one
machine never collide; `sweep_stale` removes what a run killed outright left behind.

Needs root (CAP_NET_ADMIN): `require_root` says so clearly."""
from __future__ import annotations

import ctypes
import itertools
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

PREFIX = "dh"  # "decentrl hosts": every namespace and interface a Lan makes starts with it
STALE = re.compile(rf"^{PREFIX}(\d+)[a-z](?:-|[dDhb]\d*$)")
RUN_ENV = "DECENTRL_HOSTS_RUN"
"""Set (to the Lan's tag) in the environment of every process started on a host, which its children
inherit: how `close` and `sweep_stale` find them all, also where a namespace's name no longer
leads to it (`ip netns add` run under `ip netns exec` mounts the name in that process's own mount
namespace, gone with the process)."""
CLONE_NEWNET = 0x40000000
_instances = itertools.count()


class HostsError(RuntimeError):
    """The hosts cannot be set up as asked; the message says what to do."""


def require_root() -> None:
    if os.geteuid() != 0:
        raise HostsError("the multi-host network makes network namespaces and veth pairs, which needs root "
                         "(CAP_NET_ADMIN): run it as root (CI and this project's machines do)")


def ip(*args: str, ns: str | None = None, check: bool = True) -> str:
    """`ip [-n ns] args...`; its output. HostsError with ip's message when it fails and `check`."""
    argv = ["ip", *(["-n", ns] if ns else []), *args]
    done = subprocess.run(argv, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise HostsError(f"`{' '.join(argv)}` failed: {done.stderr.strip()}")
    return done.stdout


def netns_pids(ns: str) -> list[int]:
    return [int(p) for p in ip("netns", "pids", ns, check=False).split()]


def _kill_until_gone(find_pids, grace_s: float) -> None:
    """SIGTERM every process find_pids() lists, SIGKILL those it still lists after `grace_s`."""
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        pids = find_pids()
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while pids and time.monotonic() < deadline:
            time.sleep(0.05)
            pids = find_pids()
        if not pids:
            return


def kill_netns_processes(ns: str, grace_s: float = 5.0) -> None:
    """SIGTERM every process in `ns`, SIGKILL those still there after `grace_s`."""
    _kill_until_gone(lambda: netns_pids(ns), grace_s)


def delete_netns(ns: str) -> None:
    kill_netns_processes(ns)
    ip("netns", "del", ns, check=False)  # its veth ends go with it, and so their peers


def tagged_pids(tag_matches) -> list[int]:
    """The processes whose environment has RUN_ENV set to a tag for which tag_matches(tag) holds."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as env:
                variables = env.read().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        for variable in variables:
            if variable.startswith(RUN_ENV.encode() + b"=") and tag_matches(variable.split(b"=", 1)[1].decode()):
                found.append(int(entry))
    return found


def kill_tagged(tag_matches, grace_s: float = 5.0) -> None:
    """SIGTERM every process tagged_pids finds, SIGKILL those still there after `grace_s`."""
    _kill_until_gone(lambda: tagged_pids(tag_matches), grace_s)


def sweep_stale() -> list[str]:
    """Deletes the namespaces and driver interfaces of runs whose process is gone (a run killed
    outright cannot clean up after itself); what it deleted."""
    kill_tagged(_of_a_dead_run)
    gone = []
    names = [line.split()[0] for line in ip("netns", "list", check=False).splitlines() if line.strip()]
    links = _links()
    for name in names + links:
        match = STALE.match(name)
        if match is None or _alive(int(match.group(1))):
            continue
        if name in names:
            delete_netns(name)
        else:
            ip("link", "del", name, check=False)
        gone.append(name)
    return gone


def _of_a_dead_run(tag: str) -> bool:
    match = STALE.match(f"{tag}-")
    return match is not None and not _alive(int(match.group(1)))


def _links() -> list[str]:
    """The interfaces of this process's namespace."""
    return [m.group(1) for m in re.finditer(r"^\d+: ([^:@]+)", ip("-o", "link", check=False), re.M)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _used_subnets() -> set[str]:
    shown = ip("-o", "-4", "addr", check=False) + ip("-4", "route", check=False)
    return set(re.findall(r"\b(10\.\d+\.\d+)\.\d+", shown))


def pick_subnet(seed: int) -> str:
    """A 10.A.B /24 (as "10.A.B") derived from `seed` that this namespace neither has nor routes."""
    used = _used_subnets()
    for step in range(256):
        x = (seed + step * 7919) % (128 * 256)
        subnet = f"10.{100 + x // 256}.{x % 256}"
        if subnet not in used:
            return subnet
    raise HostsError("no free 10.x.y.0/24 subnet for the hosts' LAN")


@dataclass(frozen=True)
class Host:
    name: str
    ns: str
    address: str
    bridge_port: str  # its veth's end on the bridge (in the hub namespace): down = link cut
    tag: str  # its Lan's: RUN_ENV of every process started here

    def environ(self, env: dict | None = None) -> dict:
        """`env` (default: this process's environment) with RUN_ENV set to the Lan's tag."""
        return {**(os.environ if env is None else env), RUN_ENV: self.tag}

    def popen(self, argv: list[str], *, log: Path, env: dict | None = None, cwd: Path | None = None):
        """Starts `argv` in this host's namespace (`ip netns exec` execs it: the pid is the
        program's), in its own session, output to `log`."""
        with open(log, "ab") as out:
            return subprocess.Popen(["ip", "netns", "exec", self.ns, *argv], stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, env=self.environ(env), cwd=cwd, start_new_session=True)

    def call(self, fn, *args, **kwargs):
        """fn(*args, **kwargs) run with this host's network (its 127.0.0.1): see in_netns."""
        return in_netns(self.ns, fn, *args, **kwargs)


_libc = ctypes.CDLL(None, use_errno=True)


def in_netns(ns: str, fn, *args, **kwargs):
    """fn(*args, **kwargs) in a thread that joined namespace `ns` (setns applies to one thread);
    its result, or its exception raised here. Sockets fn opens belong to `ns`: fn must open and
    close what it uses (a client pool that connects later, from another thread, would not)."""
    outcome = {}

    def run():
        fd = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
        try:
            if _libc.setns(fd, CLONE_NEWNET) != 0:
                errno = ctypes.get_errno()
                outcome["error"] = OSError(errno, f"setns into {ns}: {os.strerror(errno)}")
                return
        finally:
            os.close(fd)
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, name=f"in {ns}")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class Lan:
    """See the module doc. `add(name)` makes a host; `cut`/`restore` take its link down and up;
    `close` deletes every namespace (killing what runs in it) and interface this Lan made."""

    def __init__(self):
        require_root()
        sweep_stale()
        n = next(_instances)
        self.tag = f"{PREFIX}{os.getpid()}{chr(ord('a') + n % 26)}"
        self.subnet = pick_subnet(os.getpid() * 26 + n)
        self.hub = f"{self.tag}-hub"
        self.hosts: dict[str, Host] = {}
        self._namespaces: list[str] = []
        self.driver_link = f"{self.tag}d"
        try:
            self._add_netns(self.hub)
            ip("link", "add", "br0", "type", "bridge", ns=self.hub)
            ip("link", "set", "br0", "up", ns=self.hub)
            self.driver_address = f"{self.subnet}.254"
            ip("link", "add", self.driver_link, "type", "veth", "peer", "name", f"{self.tag}D")
            self._to_bridge(f"{self.tag}D")
            ip("addr", "add", f"{self.driver_address}/24", "dev", self.driver_link)
            ip("link", "set", self.driver_link, "up")
        except BaseException:
            self.close()
            raise

    def _add_netns(self, ns: str) -> None:
        ip("netns", "add", ns)
        self._namespaces.append(ns)
        ip("link", "set", "lo", "up", ns=ns)

    def _to_bridge(self, link: str) -> None:
        ip("link", "set", link, "netns", self.hub)
        ip("link", "set", link, "master", "br0", ns=self.hub)
        ip("link", "set", link, "up", ns=self.hub)

    def add(self, name: str) -> Host:
        """A new host `name` on the LAN (addresses .1, .2, ... in the order added)."""
        if name in self.hosts:
            raise HostsError(f"host {name} exists already")
        index = len(self.hosts) + 1
        if index > 250:
            raise HostsError("a Lan holds at most 250 hosts")
        host = Host(name, f"{self.tag}-{name}", f"{self.subnet}.{index}", f"{self.tag}b{index}", self.tag)
        self._add_netns(host.ns)
        inner = f"{self.tag}h{index}"
        ip("link", "add", inner, "type", "veth", "peer", "name", host.bridge_port)
        ip("link", "set", inner, "netns", host.ns)
        ip("link", "set", inner, "name", "eth0", ns=host.ns)
        ip("addr", "add", f"{host.address}/24", "dev", "eth0", ns=host.ns)
        ip("link", "set", "eth0", "up", ns=host.ns)
        self._to_bridge(host.bridge_port)
        self.hosts[name] = host
        return host

    def cut(self, name: str) -> None:
        """Takes the host's link down at the bridge (its cable pulled): nothing reaches it or leaves it."""
        ip("link", "set", self.hosts[name].bridge_port, "down", ns=self.hub)

    def restore(self, name: str) -> None:
        ip("link", "set", self.hosts[name].bridge_port, "up", ns=self.hub)

    def close(self) -> None:
        for ns in reversed(self._namespaces):
            delete_netns(ns)
        kill_tagged(lambda tag: tag == self.tag)  # any that left its namespace's reach
        self._namespaces.clear()
        for link in _links():  # the driver's end (gone with the hub already), a veth not yet moved
            if link.startswith(self.tag):
                ip("link", "del", link, check=False)

    def __enter__(self) -> Lan:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
