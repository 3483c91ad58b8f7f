"""Validator side of a trainer's trace (workers.roles.trace): check its structure and ends, then
re-execute only the challenged transitions and recompute only the challenged data chunks.

`check_trace` returns None when the trace holds, else the reason (naming the step or chunk):

1. The trace blob is fetched by the checkpoint metadata's `trace_cid` and must match that CID, be
   well formed, record states after exactly the steps `leaf_steps(S, spec.steps_per_leaf)` where S
   is the round's step count (`ppo.MinibatchSchedule` of the samples; with `target_kl` a trace may end
   at an earlier epoch end), hold one data chunk per CHUNK_ROWS samples, and hash to the
   committed `trace_root`.
2. Its first state is the previous checkpoint's policy and train state (computed locally, so
   compared by digest); its last state, fetched, is the checkpoint's policy, and finishing the
   round on it (`ppo.finish_round`) gives the checkpoint's train state, byte for byte.
   Normalisation statistics (workers.rl.normalization) are recomputed in full, in float64 on the
   CPU, from the round's episodes, and compared exactly: with obs_norm, every state's policy
   carries the round's observation statistics and the checkpoint's policy is the last state's with
   them updated by the round's observations; with norm_reward, every state carries the round's
   starting return statistics, the advantages are computed on rewards scaled by their update, and
   the checkpoint's train state holds that update.
3. Data: the chunks describe exactly the planned rows and finals; the challenged chunks
   (challenges.TRAINER_DATA_DOMAIN) are recomputed under the incoming policy, within
   workers.rl.replay's tolerances (a batched float32 forward pass may differ in the last bits
   from the trainer's). Advantages and returns follow from the committed values by GAE.
4. Steps: for each challenged transition j (challenges.TRAINER_STEPS_DOMAIN; plus the last one
   when the trace stopped early), states j and j+1 are fetched by CID (content checked against its
   CID by the store; bytes that are not the state fail its proof all the same) and proven against the
   trace root (workers.merkle), their counters checked, and the steps b_j .. b_(j+1) - 1
   re-executed from state j on the CPU with ppo.gradient_step on the minibatches that
   ppo.MinibatchSchedule gives (the trainer's own schedule). A CPU-trained trace must give state j+1 bit for bit; a CUDA
   one within GPU_ATOL + GPU_RTOL x the transition's largest parameter change (Adam moments:
   x their largest magnitude), counters exact. With `target_kl`, an epoch end inside a re-executed
   transition must agree with the trace going on or stopping.

**The forced-error plant** (workers.roles.plants): a forced CPU trainer plants element 0 of its
first parameter tensor after every leaf, so stored state j + 1 is the re-run from state j with
that element planted (`planted_policy_bytes` of the re-run's policy, the train state unchanged).
A CPU transition whose re-run differs from state j + 1 but whose planted re-run matches its
digest is *planted*; if every re-executed transition is planted (and everything else checks),
`check_trace` reports the trace planted (not accepted, not a rejection); planted and exact
transitions mixed are rejected (inconsistent plant). CUDA: a one-ulp plant is far inside the
CUDA tolerance, so a CUDA trace is judged the same planted or not (no validator can see it there).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import torch
from eth_utils import keccak

from workers import merkle
from workers.framing import Malformed
from workers.protocol import Evidence
from workers.rl.policy import from_bytes, policy_tensors, to_bytes
from workers.rl.ppo import (
    MinibatchSchedule,
    TrainState,
    adam_state,
    finish_round,
    gradient_step,
    make_batch,
    make_optimizer,
    reproducible_float32,
    round_return_stats,
    samples,
    update_obs_stats_,
)
from workers.rl.replay import LOGP_ATOL, RTOL, VALUE_ATOL
from workers.roles.challenges import TRAINER_DATA_DOMAIN, TRAINER_STEPS_DOMAIN, challenged_indices
from workers.roles.plants import inconsistent_plant, planted_policy_bytes
from workers.roles.trace import (
    CHUNK_ROWS,
    Chunk,
    Trace,
    TraceError,
    chunk_plan,
    leaf_steps,
    parse_trace,
    split_state,
    state_bytes,
)
from workers.storage import cid as cids

GPU_RTOL = 1e-2
"""Tolerance for CUDA-trained traces, relative to the transition's largest parameter change."""
GPU_ATOL = 1e-6
"""Absolute slack of the CUDA comparison."""


class Rejected(Exception):
    """Why the trace is rejected (internal: check_trace returns the message and the evidence)."""

    evidence: tuple[Evidence, int] = (Evidence.WHOLE, 0)

    def at(self, evidence: Evidence, item: int) -> Rejected:
        """This rejection, as one of item `item` (a transition or a data chunk)."""
        self.evidence = (evidence, item)
        return self


def _steps_name(a: int, b: int) -> str:
    return f"step {a}" if b == a + 1 else f"steps {a}..{b - 1}"


def _where(b: list[int], j: int) -> str:
    return f"{_steps_name(b[j], b[j + 1])} (state {j} -> {j + 1})"


class _Checker:
    def __init__(self, spec, task_id, round_, claimed, policy0, start: TrainState, episodes, fetch, seed):
        self.spec, self.task_id, self.round, self.claimed = spec, task_id, round_, claimed
        self.policy0, self.start, self.episodes, self.fetch, self.seed = policy0, start, episodes, fetch, seed
        self.config = dataclasses.replace(spec.ppo, device="cpu")
        self.also_chunks: tuple[int, ...] = ()
        self.also_transitions: tuple[int, ...] = ()
        self.cuda = claimed.meta["device"] == "cuda"
        self.steps_run, self.tolerance_used = 0, 0.0  # what run() re-executed, however far it got
        self.proven: dict[int, bytes] = {}  # state_data's
        self.planted: list[int] = []  # re-executed transitions that match only with the plant (CPU)
        self.exact: list[int] = []  # and those that match as they are

    # -- structure ---------------------------------------------------------------------------------

    def load_trace(self) -> Trace:
        cid = self.claimed.meta["trace_cid"]
        try:
            cids.decode(cid)
        except ValueError as error:
            raise Rejected(f"the checkpoint's trace_cid is not a CID: {error}") from None
        blob = self.fetch(cid)
        if blob is None:
            raise Rejected(f"missing data: the trainer's trace {cid} could not be fetched")
        if cids.compute(blob) != cid:
            raise Rejected(f"the trace blob fetched for {cid} does not match that CID")
        try:
            return parse_trace(blob)
        except TraceError as error:
            raise Rejected(f"trace is malformed: {error}") from None

    def check_structure(self, trace: Trace, n: int) -> list[int]:
        h, schedule = trace.header, self.schedule
        if (h["steps_per_leaf"], h["chunk_rows"]) != (self.spec.steps_per_leaf, CHUNK_ROWS):
            raise Rejected(f"trace has steps_per_leaf {h['steps_per_leaf']} and chunk_rows {h['chunk_rows']}, "
                           f"expected {self.spec.steps_per_leaf} and {CHUNK_ROWS}")
        s = trace.steps
        if not isinstance(s, int) or not 0 < s <= len(schedule):
            raise Rejected(f"trace has {s!r} gradient steps, a round on {n} samples has {len(schedule)}")
        early_end_ok = self.config.target_kl is not None and schedule.ends_epoch(s - 1) \
            if s < len(schedule) else True
        if not early_end_ok:
            raise Rejected(f"trace has {s} gradient steps, a round on {n} samples has {len(schedule)}"
                           + (" (a target_kl stop ends an epoch)" if self.config.target_kl is not None else ""))
        b = leaf_steps(s, self.spec.steps_per_leaf)
        got = [st["step"] for st in trace.states]
        if got != b:
            raise Rejected(f"trace records states after steps {got}, expected {b}")
        if len(trace.chunks) != len(self.plan):
            raise Rejected(f"trace has {len(trace.chunks)} data chunks, {n} samples make {len(self.plan)}")
        return b

    # -- states ------------------------------------------------------------------------------------

    @functools.cached_property
    def first_state(self) -> bytes:
        """State 0: the previous checkpoint, which the validator holds (the trainer does not store it)."""
        return state_bytes(to_bytes(self.policy0), self.start.to_bytes())

    def load_state(self, j: int) -> tuple[bytes, TrainState]:
        return self.open_state(j, self.state_data(j))

    def state_data(self, j: int) -> bytes:
        """State j's bytes, proven to be leaf j of the trace root; fetched and hashed once per check
        (a state can be the end of one re-executed transition and the start of the next)."""
        if j in self.proven:
            return self.proven[j]
        if j == 0:
            data = self.first_state
        else:
            entry = self.trace.states[j]
            data = self.fetch(entry["cid"])  # the CID only finds it (a store's get checks it): the proof binds it
            if data is None:
                raise Rejected(f"missing data: state {j} of the trace ({entry['cid']}) could not be fetched")
        if not merkle.verify(self.claimed.trace_root, data, self.tree.proof(j)):
            raise Rejected(f"state {j} is not leaf {j} of the committed trace root (Merkle proof fails)")
        self.proven[j] = data
        return data

    def open_state(self, j: int, data: bytes) -> tuple[bytes, TrainState]:
        """State j's (policy bytes, train state) from its proven bytes (`state_data`)."""
        try:
            policy_bytes, ts_bytes = split_state(data)
            state = TrainState.from_bytes(ts_bytes)
        except Malformed as error:
            raise Rejected(f"state {j} of the trace is malformed: {error}") from None
        s, want = state, self.start
        counters = (s.env_steps, s.rounds, s.last_checkpoint, s.updates)
        expected = (want.env_steps, want.rounds, want.last_checkpoint, want.updates + self.b[j])
        if counters != expected:
            raise Rejected(f"state {j} has counters (env_steps, rounds, last_checkpoint, updates) {counters}, "
                           f"expected {expected}")
        if not _same_stats(s.ret_rms, want.ret_rms):
            raise Rejected(f"state {j}'s return statistics are not the round's starting ones")
        return policy_bytes, state

    def state_policy(self, j: int, policy_bytes: bytes):
        """State j's policy: the task's architecture, acting with the round's observation statistics."""
        try:
            policy = from_bytes(policy_bytes)
        except Malformed as error:
            raise Rejected(f"state {j}'s policy is malformed: {error}") from None
        if policy.config != self.policy0.config or policy.spec != self.policy0.spec:
            raise Rejected(f"state {j}'s policy has another architecture than the task's")
        if not _same_stats(policy.obs_stats(), self.policy0.obs_stats()):
            raise Rejected(f"state {j}'s observation statistics are not the round's (those of its first state)")
        return policy

    def check_ends(self) -> None:
        if keccak(self.first_state) != bytes.fromhex(self.trace.states[0]["digest"]):
            raise Rejected("the trace's first state is not the previous checkpoint's policy and train state")
        self.proven[0] = self.first_state  # its digest is leaf 0's, and the tree's root is the trace root
        m = len(self.b) - 1
        policy_bytes, last = self.load_state(m)
        if self.policy0.obs_rms is not None:
            policy_bytes = self.with_new_obs_stats(m, policy_bytes)
        if policy_bytes != self.claimed.policy_bytes:
            raise Rejected(f"the trace's last state (after step {self.b[m]}) is not the checkpoint's policy")
        finish_round(last, self.n, self.config, self.ret_rms)
        if last.to_bytes() != self.claimed.train_state_bytes:
            raise Rejected(f"the trace's last state (after step {self.b[m]}) does not finish into the "
                           f"checkpoint's train state")

    def with_new_obs_stats(self, m: int, policy_bytes: bytes) -> bytes:
        """The last state's policy with the round's observation statistics updated by its episodes
        (what the checkpoint's must be); Rejected naming the statistics if only they differ."""
        policy = self.state_policy(m, policy_bytes)
        update_obs_stats_(policy, self.episodes)
        expected = to_bytes(policy)
        if expected != self.claimed.policy_bytes:
            try:
                claimed = from_bytes(self.claimed.policy_bytes)
            except Malformed as error:
                raise Rejected(f"the checkpoint's policy is malformed: {error}") from None
            if claimed.obs_stats() is not None and not _same_stats(claimed.obs_stats(), policy.obs_stats()):
                claimed.set_obs_stats_(policy.obs_stats())
                if to_bytes(claimed) == expected:
                    raise Rejected("the checkpoint's observation statistics are not the round's updated by its "
                                   "observations (recomputed in float64)")
        return expected

    # -- data --------------------------------------------------------------------------------------

    def load_batch(self):
        logp, values, finals = [], [], np.zeros(len(self.episodes), dtype=np.float64)
        for i, (raw, (first, rows, eps)) in enumerate(zip(self.trace.chunks, self.plan, strict=True)):
            try:
                c = Chunk.from_bytes(raw)
            except TraceError as error:
                raise Rejected(f"pre-update data chunk {i} is malformed: {error}") from None
            if (c.index, c.first, len(c.logp), c.episodes) != (i, first, rows, eps):
                raise Rejected(f"pre-update data chunk {i} describes (index, first row, rows, finals) "
                               f"{(c.index, c.first, len(c.logp), c.episodes)}, expected {(i, first, rows, eps)}")
            logp.append(c.logp)
            values.append(c.values)
            finals[eps] = c.finals.astype(np.float64)
        obs, actions = samples(self.episodes, torch.device("cpu"))
        return make_batch(self.episodes, obs, actions, torch.from_numpy(np.concatenate(logp)),
                          torch.from_numpy(np.concatenate(values)), finals, self.config, self.ret_rms)

    def check_chunk(self, i: int) -> None:
        first, rows, eps = self.plan[i]
        batch, sl = self.batch, slice(first, first + rows)
        with torch.no_grad():
            logp, _, values = self.policy0.evaluate(batch.obs[sl], batch.actions[sl])
            final_obs = torch.from_numpy(np.stack([self.episodes[e].obs[-1] for e in eps])) if eps else None
            finals = self.policy0.value(final_obs).double().numpy() if eps else np.zeros(0)
        for name, want, got, atol in (("old log-prob", logp.double().numpy(), batch.old_logp[sl].double().numpy(),
                                       LOGP_ATOL),
                                      ("old value", values.double().numpy(), batch.old_values[sl].double().numpy(),
                                       VALUE_ATOL),
                                      ("final value", finals, batch.final_values[eps], VALUE_ATOL)):
            bad = np.flatnonzero(~(np.abs(got - want) <= atol + RTOL * np.abs(want)))
            if bad.size:
                r = int(bad[0])
                at = f"sample {first + r}" if name != "final value" else f"episode {eps[r]}"
                raise Rejected(f"pre-update data chunk {i}: {name} of {at} is {got[r]:.9g}, recomputed "
                               f"{want[r]:.9g}")

    # -- steps -------------------------------------------------------------------------------------

    def check_transition(self, j: int) -> None:
        a, b = self.b[j], self.b[j + 1]
        policy_bytes, state = self.load_state(j)
        want_data = self.state_data(j + 1)
        want_policy, want_state = self.open_state(j + 1, want_data)
        policy = self.state_policy(j, policy_bytes)
        policy.train()
        try:
            optimizer = make_optimizer(policy, state, self.config)
        except Malformed as error:
            raise Rejected(f"state {j} is malformed: {error}") from None
        batch = self.batch
        tensors = (batch.obs, batch.actions, batch.old_logp, batch.old_values, batch.advantages, batch.returns)
        for s in range(a, b):
            idx = self.schedule.indices(s)
            stats = gradient_step(policy, optimizer, tuple(t[idx] for t in tensors), self.config)
            self.steps_run += 1
            self.check_stop(s, float(stats["approx_kl"]))
        s0 = self.start
        rerun = TrainState(s0.env_steps, s0.rounds, s0.updates + b, s0.last_checkpoint, adam_state(optimizer),
                           s0.ret_rms)
        rerun_policy = to_bytes(policy)
        if not self.cuda:
            # byte for byte against state j + 1, proven to be leaf j + 1: the same test as its digest
            rerun_state = rerun.to_bytes()
            if state_bytes(rerun_policy, rerun_state) == want_data:
                self.exact.append(j)
            elif state_bytes(planted_policy_bytes(rerun_policy), rerun_state) == want_data:
                self.planted.append(j)
            else:
                raise Rejected(f"{_where(self.b, j)} does not re-execute: the re-run gives another state "
                               f"than the trace's state {j + 1}")
            return
        self.state_policy(j + 1, want_policy)  # its observation statistics, exactly: no tolerance there
        try:
            problem, used = compare_within_gpu_tolerance(want_policy, want_state, rerun_policy, rerun, policy_bytes)
        except Malformed as error:
            raise Rejected(f"state {j + 1}'s policy is malformed: {error}") from None
        self.tolerance_used = max(self.tolerance_used, used)
        if problem:
            raise Rejected(f"{_where(self.b, j)} does not re-execute within the CUDA tolerance: {problem}")
        self.exact.append(j)

    def check_stop(self, s: int, kl: float) -> None:
        kl_target, epoch = self.config.target_kl, self.schedule.steps[s][0]
        if kl_target is None or not self.schedule.ends_epoch(s):
            return
        stops = self.schedule.stops_after(s, kl)
        if stops and s + 1 < self.trace.steps:
            raise Rejected(f"step {s} ends epoch {epoch} with approx KL {kl:.4g} > target_kl {kl_target:g}, "
                           f"but the trace goes on")
        if not stops and s + 1 == self.trace.steps < len(self.schedule):
            raise Rejected(f"the trace stops after step {s} with approx KL {kl:.4g}, not above target_kl {kl_target:g}")

    # -- all ---------------------------------------------------------------------------------------

    def run(self) -> str:
        self.n = sum(ep.steps for ep in self.episodes)
        self.schedule = MinibatchSchedule(self.n, self.config, self.start.updates)
        self.plan = chunk_plan([ep.steps for ep in self.episodes])
        self.ret_rms = round_return_stats(self.start, self.episodes, self.config)
        self.trace = self.load_trace()
        self.b = self.check_structure(self.trace, self.n)
        self.tree = self.trace.tree()
        if self.tree.root != self.claimed.trace_root:
            raise Rejected(f"the trace hashes to {self.tree.root.hex()}, not to the committed trace root "
                           f"{self.claimed.trace_root.hex()}")
        self.check_ends()
        self.batch = self.load_batch()
        k = self.spec.challenges_per_trainer
        args = (self.seed, self.task_id, self.round, 0)
        chunks = challenged_indices(*args, len(self.plan), k, TRAINER_DATA_DOMAIN, self.also_chunks)
        for i in chunks:
            try:
                self.check_chunk(i)
            except Rejected as rejection:
                raise rejection.at(Evidence.DATA_CHUNK, i) from None
        transitions = challenged_indices(*args, len(self.b) - 1, k, TRAINER_STEPS_DOMAIN, self.also_transitions)
        if self.trace.steps < len(self.schedule) and len(self.b) - 2 not in transitions:
            transitions.append(len(self.b) - 2)  # an early stop is always re-executed
        for j in transitions:
            try:
                self.check_transition(j)
            except Rejected as rejection:
                raise rejection.at(Evidence.TRANSITION, j) from None
        if self.planted and self.exact:
            reason, item = inconsistent_plant("transitions", self.planted, self.exact)
            raise Rejected(reason).at(Evidence.TRANSITION, item)
        checked = (f"trace root, ends and data check; re-executed {self.steps_run} of {self.trace.steps} steps "
                   f"(transitions {transitions}), recomputed data chunks {chunks}"
                   + (f"; CUDA trace: {self.tolerance_used:.3g} of the tolerance used" if self.cuda else ""))
        if self.planted:
            return (f"planted: the only discrepancy of the re-executed transitions {self.planted} is the "
                    f"forced-error plant (element 0 of the first parameter tensor); {checked}")
        return checked


def check_trace(spec, task_id: int, round_: int, claimed, policy0, start: TrainState, episodes, fetch,
                challenge_seed: bytes, also_chunks: tuple[int, ...] = (), also_transitions: tuple[int, ...] = ()
                ) -> tuple[bool, str, float | None, tuple[Evidence, int], bool]:
    """(accepted, reason, tolerance used, evidence, planted) for a trainer's checkpoint `claimed` (already checked
    against its root and inputs): its trace, sampled (module doc). `policy0`, `start`: the round's
    incoming policy and TrainState; `episodes`: the inputs' episodes in training order; `fetch(cid)`:
    the bytes, or None when they cannot be had. The tolerance used: for a CUDA trace, the largest
    re-execution error as a fraction of its tolerance (None for a CPU trace, re-executed bit for bit).
    `also_chunks`, `also_transitions`: items re-executed besides the challenged ones (a dispute's
    evidence). The evidence: the item whose check failed ((WHOLE, 0) for the trace as a whole).
    Planted: every re-executed transition holds only the forced-error plant (module doc); the trace
    is then not accepted, and the evidence names the first planted transition."""
    checker = _Checker(spec, task_id, round_, claimed, policy0, start, episodes, fetch, challenge_seed)
    checker.also_chunks, checker.also_transitions = tuple(also_chunks), tuple(also_transitions)
    evidence, planted = (Evidence.WHOLE, 0), False
    try:
        with reproducible_float32():  # the trainer's kernels (ppo.train_round runs under it too)
            reason = checker.run()
        planted = bool(checker.planted)
        accepted = not planted
        if planted:
            evidence = (Evidence.TRANSITION, checker.planted[0])
    except Rejected as rejection:
        reason, accepted, evidence = str(rejection), False, rejection.evidence
    return accepted, reason, (checker.tolerance_used if checker.cuda else None), evidence, planted


def _same_stats(a, b) -> bool:
    """Both None, or the same running statistics bit for bit."""
    return a is None and b is None or a is not None and b is not None and a.same(b)


def _max_abs_diff(a: dict, b: dict) -> float:
    return max((float((a[k].double() - b[k].double()).abs().max()) for k in a if a[k].numel()), default=0.0)


def compare_within_gpu_tolerance(claimed_policy: bytes, claimed_state: TrainState, rerun_policy: bytes,
                                 rerun_state: TrainState, before_policy: bytes) -> tuple[str | None, float]:
    """(None if a CUDA-computed state is within the tolerance of the CPU re-run from `before`, else
    why not; the largest error as a fraction of its tolerance, over the policy and Adam moments).
    Malformed if `claimed_policy` is not a policy's safetensors."""
    c_pol, r_pol, p_pol = (policy_tensors(x) for x in (claimed_policy, rerun_policy, before_policy))
    if set(c_pol) != set(r_pol) or any(c_pol[k].shape != r_pol[k].shape for k in r_pol):
        return "policy tensors differ in names or shapes from the re-run", math.inf
    update = _max_abs_diff(r_pol, p_pol)
    err = _max_abs_diff(c_pol, r_pol)
    used = _used(err, update)
    if not used <= 1:
        return (f"policy parameters differ from the re-run by up to {err:.3g}, more than the CUDA tolerance "
                f"{GPU_ATOL:g} + {GPU_RTOL:g} x the transition's update {update:.3g}"), used
    counters = lambda s: (s.env_steps, s.rounds, s.updates, s.last_checkpoint,  # noqa: E731
                          {i: float(m["step"]) for i, m in s.adam.items()})
    if counters(claimed_state) != counters(rerun_state):
        return f"train state counters {counters(claimed_state)} differ from the re-run's {counters(rerun_state)}", used
    if set(claimed_state.adam) != set(rerun_state.adam):
        return (f"Adam state covers parameters {sorted(claimed_state.adam)}, the re-run's "
                f"{sorted(rerun_state.adam)}"), used
    for i, moments in rerun_state.adam.items():
        for name in ("exp_avg", "exp_avg_sq"):
            want, got = moments[name].double(), claimed_state.adam[i][name].double()
            if got.shape != want.shape:
                return f"Adam {name} of parameter {i} has shape {tuple(got.shape)}, expected {tuple(want.shape)}", used
            scale = float(want.abs().max()) if want.numel() else 0.0
            err = float((got - want).abs().max()) if want.numel() else 0.0
            fraction = _used(err, scale)
            used = max(used, fraction)
            if not fraction <= 1:
                return f"Adam {name} of parameter {i} differs from the re-run by {err:.3g}", used
    return None, used


def _used(err: float, scale: float) -> float:
    """`err` as a fraction of the CUDA tolerance at `scale` (GPU_ATOL + GPU_RTOL x scale): within
    the tolerance when <= 1 (NaN never is)."""
    return err / (GPU_ATOL + GPU_RTOL * scale)
