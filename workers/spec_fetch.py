"""A task's spec fetched and parsed by the nodes' own rules, and what a requester is told when
those rules refuse it. One function for every party that must agree: a node claiming a slot
(workers.node.handlers.common.spec_by), `task submit` before it signs, `task status`, `spec put`
and the explorer. A spec the nodes cannot use is never claimed, so its task sits open until its
claim window ends: these checks let the requester learn why before that."""

from __future__ import annotations

from dataclasses import dataclass

from workers.cid import CIDMismatch
from workers.spec import SpecError, TaskSpec, parse
from workers.storage import NotACid, StorageError

CHECK_TIMEOUT_S = 10.0
"""How long a status check waits for the spec (a missing CID on IPFS waits out this timeout)."""


def fetch_spec(store, cid: str, digest: bytes, timeout: float | None = None) -> TaskSpec:
    """The TaskSpec at `cid`: its bytes checked against the CID (store.get) and against the on-chain
    specDigest (parse), then every field checked. Raises StorageError (NotACid for a string that is
    no CIDv1 the nodes read, e.g. a CIDv0), CIDMismatch or SpecError."""
    data = store.get(cid) if timeout is None else store.get(cid, timeout=timeout)
    return parse(data, digest=digest)


def store_name(store) -> str:
    """Where a store reads from, for messages: the IPFS RPC API or the embedded store's folder."""
    api = getattr(store, "api", None)
    return f"the IPFS node at {api}" if api else f"the embedded store at {getattr(store, 'root', store)}"


@dataclass(frozen=True)
class SpecCheck:
    """The verdict on a task's spec under the nodes' rules."""

    usable: bool
    """The nodes can fetch and parse it: the task can be claimed."""
    refused: bool
    """The nodes refuse it whatever the store (not a CIDv1 they read, wrong bytes, a bad field):
    the task will never be claimed."""
    message: str | None
    """What to tell the requester (None when usable)."""


def check_spec(store, cid: str, digest: bytes, timeout: float = CHECK_TIMEOUT_S) -> SpecCheck:
    """Fetches and parses the spec as a node would. A spec that cannot be fetched from `store` is
    not called refused (the nodes' store may still have it): the message says which store failed."""
    try:
        fetch_spec(store, cid, digest, timeout)
    except (NotACid, CIDMismatch, SpecError) as exc:  # NotACid before its base ContentNotFound
        return _refused(str(exc))
    except (StorageError, OSError) as exc:
        return SpecCheck(False, False, f"could not fetch spec {cid} from {store_name(store)}: {exc}")
    return SpecCheck(True, False, None)


def _refused(reason: str) -> SpecCheck:
    return SpecCheck(False, True, f"nodes cannot use this task's spec: {reason} — it will not be claimed")


class SpecNotUsable(StorageError):
    """A spec published to a store could not be fetched back from it and parsed by the nodes' rules."""


def publish_spec(store, task_spec: TaskSpec) -> str:
    """Publishes `task_spec`'s canonical bytes (pinned) and fetches them back and parses them as a
    node would, before anything refers to them; returns the CID. SpecNotUsable says what failed."""
    cid = store.put(task_spec.to_bytes(), pin=True)
    check = check_spec(store, cid, task_spec.digest())
    if not check.usable:
        raise SpecNotUsable(check.message)
    return cid
