"""Plain calls to an IPFS node's RPC API (`POST /api/v0/COMMAND?arg=...`, kubo and js-ipfs alike),
for what ipfshttpclient 0.7 does not do in a way both accept: pubsub (workers.storage.ipfs_pubsub:
its helpers predate the multibase topics) and swarm/connect (workers.storage.swarm_peers: it adds
query arguments js-ipfs refuses)."""
from __future__ import annotations

from workers.storage.store import ipfs_api_address


class RpcError(OSError):
    """The IPFS node answered a call with an error; the message carries its answer."""


def api_url(api: str) -> str:
    """http://host:port of an RPC API given as a multiaddr (/ip4/127.0.0.1/tcp/5001/http) or a URL;
    ValueError saying what to give for anything else."""
    parts = ipfs_api_address(api).strip("/").split("/")
    if len(parts) != 5 or parts[0] not in ("ip4", "ip6", "dns", "dns4", "dns6") or parts[2] != "tcp" \
            or parts[4] not in ("http", "https"):
        raise ValueError(f"bad IPFS API address {api!r}: give /ip4/HOST/tcp/PORT/http or http://HOST:PORT")
    host = f"[{parts[1]}]" if parts[0] == "ip6" else parts[1]
    return f"{parts[4]}://{host}:{int(parts[3])}"


def call(api: str, command: str, arg: str | None = None, timeout: float = 5.0) -> dict:
    """The JSON answer of `command` (e.g. "swarm/peers") at the node whose API is `api`. An
    unreachable node raises requests' ConnectionError or Timeout (OSErrors); an error answer
    RpcError."""
    import requests

    response = requests.post(f"{api_url(api)}/api/v0/{command}", params=None if arg is None else {"arg": arg},
                             timeout=timeout)
    if response.status_code != 200:
        raise RpcError(f"{command}: HTTP {response.status_code} {response.text[:300]}")
    return response.json() if response.content else {}
