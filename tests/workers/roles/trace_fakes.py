"""Dishonest trainers for the trace tests: a trainer that alters or skips one gradient step, and one
that rewrites its trace (header or chunks) and re-roots and re-bundles it consistently."""

import copy

import torch

from tests.workers.roles.conftest import TASK_ID
from workers.roles import trainer
from workers.roles.trace import assemble
from workers.storage import cid as cids


def altered_at(step, scale=1e-3):
    """on_step hook: after gradient step `step` (0-based), add `scale` to one actor weight."""
    def hook(steps, policy, optimizer, batch):
        if steps == step + 1:
            with torch.no_grad():
                policy.actor[0].weight[0, 0] += scale
    return hook


def skipped_at(step):
    """on_step hook: undo gradient step `step` (parameters and Adam moments back to before it)."""
    saved = {}

    def hook(steps, policy, optimizer, batch):
        if steps == step:
            saved["params"] = [p.detach().clone() for p in policy.parameters()]
            saved["adam"] = {k: {n: t.clone() for n, t in s.items()} for k, s in optimizer.state.items()}
        if steps == step + 1:
            with torch.no_grad():
                for p, q in zip(policy.parameters(), saved["params"], strict=True):
                    p.copy_(q)
            for k, s in optimizer.state.items():
                for n in ("exp_avg", "exp_avg_sq"):
                    # a fresh optimizer has no moments before its first step: they were zero
                    s[n].copy_(saved["adam"][k][n]) if k in saved["adam"] else s[n].zero_()
    return hook


def dishonest_round(spec, rnd, hook):
    return trainer.train_round(spec, TASK_ID, rnd.round, rnd.prev,
                               rnd.revealed, on_step=hook)


def rebundle(ckpt, **changes):
    """`ckpt` bundled again with some of make_checkpoint's arguments changed."""
    m = ckpt.meta
    args = dict(task_id=m["task_id"], round_=m["round"], spec_digest=bytes.fromhex(m["spec"]),
                prev_root=None if m["prev"] is None else bytes.fromhex(m["prev"]), inputs=ckpt.inputs,
                device=m["device"], policy_bytes=ckpt.policy_bytes, train_state_bytes=ckpt.train_state_bytes,
                trace_root=ckpt.trace_root, trace_cid=m["trace_cid"], trace=ckpt.trace,
                trace_states=ckpt.trace_states)
    return trainer.make_checkpoint(**{**args, **changes})


def renamed_spec(ckpt, spec_digest):
    """`ckpt` claiming another spec (digest), everything else as trained."""
    return rebundle(ckpt, spec_digest=spec_digest)


def renamed_trace(ckpt, trace_cid):
    """`ckpt` naming another trace blob, its trace root unchanged."""
    return rebundle(ckpt, trace_cid=trace_cid)


def retraced(ckpt, edit_header=lambda h: None, chunks=None, device=None):
    """`ckpt` with its trace rewritten (header edited, chunks replaced), re-rooted and re-bundled."""
    header = copy.deepcopy(ckpt.trace.header)
    raw = list(ckpt.trace.chunks if chunks is None else chunks)
    edit_header(header)
    header["chunks"] = [len(c) for c in raw]
    trace = assemble(header, raw)
    return rebundle(ckpt, device=device or ckpt.meta["device"], trace_root=trace.tree().root,
                    trace_cid=cids.compute(trace.blob), trace=trace)

