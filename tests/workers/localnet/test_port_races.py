"""A server (anvil, the embedded Redis) started on a port another process took between our probe
and the server's bind (a parallel test worker, typically): the other listener answers on the
port, so success must mean that *our* server holds it; else ours has exited and the next free
port is tried."""

import os
import socket

from workers.localnet import chain
from workers.localnet.chain import Anvil
from workers.ports import owns_port


def listener() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_owns_port_tells_the_listening_process():
    sock = listener()
    try:
        port = sock.getsockname()[1]
        assert owns_port(os.getpid(), port) is True
        assert owns_port(1, port) in (False, None)  # pid 1 is not us (None: /proc hidden from us)
    finally:
        sock.close()
    assert owns_port(os.getpid(), port) is False


def test_a_port_taken_after_the_probe_is_not_mistaken_for_our_anvil(monkeypatch):
    taken = listener()  # what the other worker's process holds
    port = taken.getsockname()[1]
    picks = iter([port])
    real_free_port = chain.free_port
    monkeypatch.setattr(chain, "free_port", lambda ports=(), fallback=True: next(picks, None) or real_free_port())
    node = Anvil()
    try:
        assert node.port != port
        assert node.proc.poll() is None and owns_port(node.pid, node.port)
        from workers.chain.rpc import http_w3

        assert http_w3(node.http_url).eth.chain_id == 31337
    finally:
        node.stop()
        taken.close()


def test_the_embedded_redis_is_not_mistaken_for_another_on_its_port(tmp_path, monkeypatch):
    from workers.localnet.chain import free_port
    from workers.node.processes import redis_service

    other = redis_service.start_embedded(tmp_path / "other", persistent=False)
    try:
        taken = int(other.url.rsplit(":", 1)[1].split("/")[0])
        spare = free_port()
        monkeypatch.setattr(redis_service, "_port_free", lambda port: True)  # the probe saw it free
        ours = redis_service.start_embedded(tmp_path / "ours", ports=[taken, spare], persistent=False)
        try:
            assert ours.url == f"redis://127.0.0.1:{spare}/0"
            assert ours.process.poll() is None and owns_port(ours.process.pid, spare)
        finally:
            ours.stop()
    finally:
        other.stop()
