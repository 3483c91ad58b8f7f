"""The explorer's JSON API over the read model (workers.explorer.history) and the learning curve
(workers.explorer.curve). Every answer is plain JSON: enums as lower-case names, bytes as 0x hex,
amounts in wei as decimal strings in fields named `*_wei` (JSON numbers lose precision past
2**53), a single amount with a readable `*_drl` beside it. See SPECIFICATION.md "Explorer" for the endpoints."""

from __future__ import annotations

import dataclasses
import math
import threading
from enum import Enum

from workers.amounts import fmt_drl
from workers.explorer import history as hist
from workers.explorer.curve import CurveCache, learning_curve


class NotFound(LookupError):
    """No such task, node or path (HTTP 404)."""


def jsonable(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name.endswith("_wei") and isinstance(v, int):
                out[f.name] = str(v)
                out[f.name[:-4] + "_drl"] = fmt_drl(v)
            elif f.name.endswith("_wei") and isinstance(v, dict):
                out[f.name] = {jsonable(k) if isinstance(k, Enum) else str(k): str(a) for k, a in v.items()}
            elif f.name.endswith("_wei") and isinstance(v, (list, tuple)):
                out[f.name] = [str(a) for a in v]
            else:
                out[f.name] = jsonable(v)
        return out
    if isinstance(value, Enum):
        return value.name.lower()
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict):
        return {jsonable(k) if isinstance(k, Enum) else str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def amounts(by_key: dict) -> dict:
    """{key: wei} -> {key: {"wei": "...", "drl": "..."}}."""
    return {jsonable(k) if isinstance(k, Enum) else str(k): {"wei": str(v), "drl": fmt_drl(v)}
            for k, v in by_key.items()}


class ExplorerApi:
    """Answers the explorer's requests; each one first reads the blocks mined since the last.
    The server's threads call it one at a time (`lock`): the RPC client and the stores are not
    promised to be thread-safe, and a local page needs no parallel answers."""

    def __init__(self, deployment, store, eval_episodes: int = 10):
        self.deployment = deployment
        self.store = store
        self.eval_episodes = eval_episodes
        self.log = hist.ChainLog(deployment)
        self.cache = CurveCache()
        self.usable_specs: set[tuple[str, bytes]] = set()
        self.lock = threading.Lock()

    def network(self) -> dict:
        head = self.log.refresh()
        d = self.deployment
        nodes = [self._node_summary(hist.node_history(self.log, a)) for a in hist.node_addresses(self.log)]
        return {"network": d.network, "chain_id": d.chain_id, "registry": d.addresses["TaskRegistry"],
                "head": head, "tasks": jsonable(hist.tasks(self.log)), "nodes": nodes,
                "payouts_by_role": amounts(hist.payouts_by_role(self.log))}

    def task(self, task_id: int) -> dict:
        self.log.refresh()
        h = self._history(task_id)
        out = jsonable(h)
        out["gas_by_kind"] = [{"kind": kind, "transactions": count, "gas_used": used}
                              for kind, (count, used) in h.gas_by_kind().items()]
        out["gas_used"] = sum(tx.gas_used for tx in h.gas)
        out["payouts"] = [{"node": node, "role": role.name.lower(), "amount_wei": str(wei), "amount_drl": fmt_drl(wei)}
                          for (node, role), wei in h.payouts().items()]
        out["paid_by_role"] = amounts(h.paid_by_role())
        out.update(self._waiting(task_id))
        return out

    def _waiting(self, task_id: int) -> dict:
        """What the task waits for (workers.chain.waiting) and, while it is open or drawing, whether
        the nodes can use its spec (workers.spec_fetch; only a usable verdict is remembered, so a
        spec published later is seen)."""
        from workers.chain.view import ChainView
        from workers.chain.waiting import waiting_for
        from workers.protocol import Status
        from workers.spec_fetch import check_spec

        view = ChainView(self.deployment)
        t = view.task(task_id)
        now = view.protocol_time()  # as a transaction sent now sees it (workers.chain.stalls)
        waiting = waiting_for(view, t, now, self.deployment.w3.eth.block_number)
        out = {"waiting": None if waiting is None else {**jsonable(waiting), "lines": waiting.lines()},
               "spec_problem": None}
        key = (t.spec_cid, bytes(t.spec_digest))
        if t.status in (Status.OPEN, Status.DRAWING) and key not in self.usable_specs:
            check = check_spec(self.store, *key)
            if check.usable:
                self.usable_specs.add(key)
            else:
                out["spec_problem"] = check.message
        return out

    def curve(self, task_id: int) -> dict:
        self.log.refresh()
        return jsonable(learning_curve(self._history(task_id), self.store, self.eval_episodes, self.cache))

    def node(self, address: str) -> dict:
        self.log.refresh()
        match = next((a for a in hist.node_addresses(self.log) if a.lower() == address.lower()), None)
        if match is None:
            raise NotFound(f"no node {address} has staked on this deployment")
        return jsonable(hist.node_history(self.log, match))

    def _history(self, task_id: int) -> hist.TaskHistory:
        try:
            return hist.task_history(self.log, task_id)
        except hist.TaskNotFound as exc:
            raise NotFound(str(exc)) from None

    @staticmethod
    def _node_summary(n: hist.NodeHistory) -> dict:
        out = jsonable(n)
        out["scores"] = ([n.reputation[0].old] if n.reputation else [n.score]) + [c.new for c in n.reputation]
        return out
