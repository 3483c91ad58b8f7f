"""The hosts' LAN (workers.localnet.hosts.netns): hosts reach each other over it and the driver
reaches them; a cut host reaches nothing until restored; and closing it, also on a failure,
leaves no namespace, interface or process behind, as does the sweep of a run killed outright."""
import socket
import subprocess
import sys
import time

import pytest

from workers.localnet.hosts.netns import RUN_ENV, Lan, in_netns, ip, netns_pids, require_root, sweep_stale

SERVE = ("import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
         "s.bind(('0.0.0.0', 7000)); s.listen()\n"
         "while True:\n    c, _ = s.accept(); c.sendall(b'hello'); c.close()")


def _fetch(address: str, timeout: float = 1.0) -> bytes:
    with socket.create_connection((address, 7000), timeout=timeout) as s:
        return s.recv(16)


def _fetch_again(address: str, within_s: float = 10.0) -> bytes:
    """_fetch, tried again for `within_s`: a restored link answers once b has resolved a's address
    anew (its failed neighbour entry is probed again), which a loaded machine may take seconds for."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            return _fetch(address)
        except OSError:
            if time.monotonic() > deadline:
                raise


def _serve(host, tmp_path):
    proc = host.popen([sys.executable, "-c", SERVE], log=tmp_path / f"{host.name}.log")
    for _ in range(100):
        try:
            in_netns(host.ns, _fetch, "127.0.0.1")
            return proc
        except OSError:
            subprocess.run(["sleep", "0.05"])
    raise AssertionError(f"the server on {host.name} did not start")


def _names(tag: str) -> list[str]:
    namespaces = ip("netns", "list").split()
    return [n for n in namespaces + ip("-o", "link").split() if n.startswith(tag)]


@pytest.fixture
def lan():
    require_root()
    with Lan() as lan:
        yield lan


def test_hosts_reach_each_other_and_a_cut_host_reaches_nothing(lan, tmp_path):
    a, b = lan.add("a"), lan.add("b")
    _serve(a, tmp_path)
    assert in_netns(b.ns, _fetch, a.address) == b"hello"
    assert _fetch(a.address) == b"hello"  # the driver, on the LAN too
    lan.cut("a")
    with pytest.raises(OSError):
        in_netns(b.ns, _fetch, a.address)
    lan.restore("a")
    assert in_netns(b.ns, _fetch_again, a.address) == b"hello"



def test_close_removes_every_namespace_interface_and_process(tmp_path):
    require_root()
    lan = Lan()
    with pytest.raises(RuntimeError, match="a test failing"):
        with lan:
            host = lan.add("a")
            proc = _serve(host, tmp_path)
            assert _names(lan.tag)
            raise RuntimeError("a test failing")
    assert proc.wait(5) is not None
    assert _names(lan.tag) == []


def test_sweep_removes_what_a_dead_run_left(tmp_path):
    require_root()
    dead = subprocess.Popen(["true"])
    dead.wait()
    ns = f"dh{dead.pid}z-left"
    ip("netns", "add", ns)
    sleeper = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "60"])
    while netns_pids(ns) != [sleeper.pid]:  # until `ip netns exec` has joined it
        assert sleeper.poll() is None
    assert ns in sweep_stale()
    assert sleeper.wait(10) is not None
    assert ns not in ip("netns", "list")


def test_sweep_kills_a_dead_runs_processes_its_namespace_names_no_longer_reach():
    require_root()
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = subprocess.Popen(["sleep", "60"], env={RUN_ENV: f"dh{dead.pid}y"})
    sweep_stale()
    assert orphan.wait(10) is not None
