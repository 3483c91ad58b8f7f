"""Keeping a node's IPFS node connected to the other operators' IPFS nodes.

An operator's IPFS node fetches what another node produced (rollouts, checkpoints, the spec) over
bitswap, which asks only the peers it is connected to. js-ipfs does not dial its bootstrap list by
itself, and a peer whose host went away is not dialed again when it comes back. So the node is
given its peers' swarm multiaddrs (`decentrl node start --ipfs-peer /ip4/.../tcp/4001/p2p/<id>`)
and `SwarmPeers.dial` connects every one its IPFS node is not connected to, at start and every
`interval_s` after: a host that comes back is reconnected within that interval."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from workers.storage.ipfs_rpc import api_url, call

DIAL_INTERVAL_S = 10.0
"""Seconds between the node's looks at its IPFS node's connections (a swarm/peers call)."""


def peer_id_of(multiaddr: str) -> str:
    """The peer id a swarm multiaddr ends with (/p2p/<id>); ValueError saying what to give if none."""
    parts = multiaddr.strip().split("/")
    if len(parts) < 3 or parts[-2] not in ("p2p", "ipfs") or not parts[-1] or not multiaddr.startswith("/"):
        raise ValueError(f"{multiaddr!r} is not a peer's swarm multiaddr: give /ip4/ADDRESS/tcp/PORT/p2p/PEER_ID "
                         "(the peer's `ipfs id` shows its addresses)")
    return parts[-1]


class SwarmPeers:
    """Dials `peers` (swarm multiaddrs ending /p2p/<id>) from the IPFS node whose RPC API is `api`
    whenever it is not connected to them; `dial` is cheap when they all are (one swarm/peers).
    Plain RPC calls (workers.storage.ipfs_rpc)."""

    def __init__(self, api: str, peers: Iterable[str], *, interval_s: float = DIAL_INTERVAL_S, timeout: float = 5.0,
                 clock: Callable[[], float] = time.monotonic):
        self.peers = {peer_id_of(p): p for p in peers}
        self.api = api
        api_url(api)  # a bad address fails here, not at every dial
        self.interval_s, self.timeout, self._clock = interval_s, timeout, clock
        self._next = 0.0

    def _rpc(self, command: str, arg: str | None = None) -> dict:
        return call(self.api, command, arg, timeout=self.timeout)

    def due(self) -> bool:
        return bool(self.peers) and self._clock() >= self._next

    def connected(self) -> set[str]:
        """The peer ids the IPFS node is connected to now."""
        return {entry["Peer"] for entry in self._rpc("swarm/peers").get("Peers") or []}

    def dial(self) -> dict[str, str]:
        """Connects every given peer the IPFS node is not connected to; returns what became of each
        dialed one (peer id -> "connected" or the error). An IPFS node that cannot be reached is
        the health check's to report: that gives {"*": error} and the next look is due as usual."""
        self._next = self._clock() + self.interval_s
        try:
            missing = set(self.peers) - self.connected()
        except (OSError, ValueError) as error:  # a refused connection, a timeout, an error answer, bad JSON
            return {"*": f"IPFS node unreachable: {error}"}
        outcome = {}
        for peer in sorted(missing):
            try:
                self._rpc("swarm/connect", self.peers[peer])
                outcome[peer] = "connected"
            except (OSError, ValueError) as error:  # that host down or cut off: dialed again next time
                outcome[peer] = str(error)
        return outcome

