"""SwarmPeers (workers.storage.swarm_peers) against a stand-in for an IPFS node's RPC API: it dials
only the listed peers the node is not connected to, looks again only after its interval, reports a
peer it could not dial (dialed again next time) and an IPFS node it cannot reach, without raising."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from workers.storage.swarm_peers import SwarmPeers, peer_id_of

A = "/ip4/10.0.0.2/tcp/4001/p2p/12D3KooWA"
B = "/ip4/10.0.0.3/tcp/4001/p2p/12D3KooWB"


class FakeIpfs(BaseHTTPRequestHandler):
    connected: set = set()
    dials: list = []
    refuse: set = set()

    def do_POST(self):  # noqa: N802 - http.server's name
        url = urlsplit(self.path)
        if url.path == "/api/v0/swarm/peers":
            self._answer(200, {"Peers": [{"Peer": p, "Addr": "x"} for p in sorted(self.connected)]})
        elif url.path == "/api/v0/swarm/connect":
            address = parse_qs(url.query)["arg"][0]
            self.dials.append(address)
            if address in self.refuse:
                self._answer(500, {"Message": "dial failed"})
            else:
                self.connected.add(peer_id_of(address))
                self._answer(200, {"Strings": ["connect success"]})

    def _answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def ipfs():
    FakeIpfs.connected, FakeIpfs.dials, FakeIpfs.refuse = {"12D3KooWA"}, [], set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeIpfs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"/ip4/127.0.0.1/tcp/{server.server_address[1]}/http"
    server.shutdown()
    server.server_close()


def test_dials_only_the_peers_not_connected_and_waits_its_interval(ipfs):
    now = [0.0]
    peers = SwarmPeers(ipfs, [A, B], interval_s=10, clock=lambda: now[0])
    assert peers.due()
    assert peers.dial() == {"12D3KooWB": "connected"}
    assert FakeIpfs.dials == [B]
    now[0] = 9.9
    assert not peers.due()
    now[0] = 10.0
    assert peers.due() and peers.dial() == {}  # everyone connected: nothing dialed


def test_a_peer_that_cannot_be_dialed_is_reported_and_dialed_again(ipfs):
    FakeIpfs.refuse = {B}
    peers = SwarmPeers(ipfs, [A, B], interval_s=0)
    assert "dial failed" in peers.dial()["12D3KooWB"]
    FakeIpfs.refuse = set()
    assert peers.dial() == {"12D3KooWB": "connected"}
    assert FakeIpfs.dials == [B, B]


def test_an_unreachable_ipfs_node_is_reported_not_raised():
    peers = SwarmPeers("/ip4/127.0.0.1/tcp/9/http", [A], timeout=1)
    assert peers.dial()["*"].startswith("IPFS node unreachable")


def test_a_peer_address_must_end_with_its_id():
    assert peer_id_of(A) == "12D3KooWA"
    for bad in ("/ip4/10.0.0.2/tcp/4001", "10.0.0.2:4001/p2p/x", "/ip4/10.0.0.2/tcp/4001/p2p/"):
        with pytest.raises(ValueError, match="is not a peer's swarm multiaddr"):
            peer_id_of(bad)
