"""The trainer's trace check (workers/roles/trace_check.py) on a CNN policy: an honest CPU trace
re-executes bit for bit, an altered gradient step is rejected, and a CUDA-labelled trace is judged
within the GPU tolerance (GPU_ATOL + GPU_RTOL x the transition's update) like an MLP's. On a
machine without a GPU the CUDA numerics themselves are not exercised: the CUDA trace here is a
CPU trace with a known perturbation, labelled "cuda"."""

import types

import pytest
import torch

from tests.workers.rl.image_episodes import synthetic_episodes
from tests.workers.rl.test_policy_cnn import MINATAR
from tests.workers.roles.conftest import TASK_ID
from tests.workers.roles.trace_fakes import altered_at, rebundle
from workers.rl import ppo
from workers.rl.config import MINATAR_CNN, PolicyConfig, PPOConfig
from workers.rl.policy import from_bytes, make_policy, to_bytes
from workers.roles.trace import split_state
from workers.roles.trace_check import GPU_RTOL, check_trace
from workers.roles.trainer import train_episodes
from workers.storage import cid as cids

SPEC = types.SimpleNamespace(ppo=PPOConfig(batch_size=8, update_epochs=2, learning_rate=1e-3), steps_per_leaf=1,
                             challenges_per_trainer=8, digest=lambda: bytes(32))
"""What the trainer and the trace check read of a task spec: 2 x 16 samples / batch 8 x 2 epochs =
8 gradient steps, one leaf each, every one re-executed."""
SEED = bytes(32)
STEP = 3


def trained(config, on_step=None):
    """(checkpoint, incoming policy, starting state, episodes) of one round from the initial policy."""
    episodes = synthetic_episodes(MINATAR, [16, 16], seed=4)
    policy = make_policy(MINATAR, config)
    incoming = from_bytes(to_bytes(policy))
    ckpt = train_episodes(SPEC, TASK_ID, 0, policy, ppo.TrainState(), None, [(0, bytes(32))], episodes,
                          on_step=on_step)
    return ckpt, incoming, episodes


def judge(ckpt, incoming, episodes):
    stored = {cids.compute(b): b for b in ckpt.stored}
    accepted, reason, used, _, _ = check_trace(SPEC, TASK_ID, 0, ckpt, incoming, ppo.TrainState(), episodes,
                                               stored.get, SEED)
    return accepted, reason, used


@pytest.mark.parametrize("obs_norm", [False, True])
def test_an_honest_cnn_trace_re_executes_bit_for_bit(obs_norm):
    ckpt, incoming, episodes = trained(PolicyConfig(kind=MINATAR_CNN, hidden_sizes=(32,), obs_norm=obs_norm))
    accepted, reason, used = judge(ckpt, incoming, episodes)
    assert accepted and "re-executed 8 of 8 steps" in reason and used is None, reason


def test_an_altered_cnn_step_is_rejected():
    config = PolicyConfig(kind=MINATAR_CNN, hidden_sizes=(32,))
    fake, incoming, episodes = trained(config, altered_at(STEP))
    accepted, reason, _ = judge(fake, incoming, episodes)
    assert not accepted and reason.startswith(f"step {STEP} (state {STEP} -> {STEP + 1}) does not re-execute"), reason


def test_a_cuda_cnn_trace_is_judged_within_the_gpu_tolerance():
    config = PolicyConfig(kind=MINATAR_CNN, hidden_sizes=(32,))
    honest, incoming, episodes = trained(config)
    before, after = (from_bytes(split_state(honest.trace_states[i - 1])[0]) for i in (STEP, STEP + 1))
    update = max(float((a - b).detach().abs().max())
                 for a, b in zip(after.parameters(), before.parameters(), strict=True))
    close = rebundle(trained(config, altered_at(STEP, GPU_RTOL * update / 10))[0], device="cuda")
    accepted, reason, used = judge(close, incoming, episodes)
    assert accepted and 0.05 < used < 0.2, reason
    far = rebundle(trained(config, altered_at(STEP, GPU_RTOL * update * 3))[0], device="cuda")
    accepted, reason, used = judge(far, incoming, episodes)
    assert not accepted and "within the CUDA tolerance: policy parameters differ" in reason and 2.5 < used < 3.5


def test_the_trunk_is_what_a_cnn_trace_checks_too():
    """A change to the shared trunk only (not the heads) is rejected like any other."""
    def trunk_altered(steps, policy, optimizer, batch):
        if steps == STEP + 1:
            with torch.no_grad():
                policy.trunk[0].weight[0, 0, 0, 0] += 1e-3
    fake, incoming, episodes = trained(PolicyConfig(kind=MINATAR_CNN, hidden_sizes=(32,)), trunk_altered)
    accepted, reason, _ = judge(fake, incoming, episodes)
    assert not accepted and reason.startswith(f"step {STEP} (state {STEP} -> {STEP + 1})"), reason


def test_the_check_re_executes_with_the_trainers_kernels():
    """The trace check runs under ppo.reproducible_float32, as the trainer's round: no oneDNN CPU
    convolutions (their bits depend on the CPU's vector ISA) and no TF32."""
    ckpt, incoming, episodes = trained(PolicyConfig(kind=MINATAR_CNN, hidden_sizes=(32,)))
    stored, seen = {cids.compute(b): b for b in ckpt.stored}, set()

    def fetch(cid):
        seen.add((torch.backends.mkldnn.enabled, torch.backends.cudnn.conv.fp32_precision))
        return stored.get(cid)
    accepted, reason, _, _, _ = check_trace(SPEC, TASK_ID, 0, ckpt, incoming, ppo.TrainState(), episodes, fetch, SEED)
    assert accepted and seen == {(False, "ieee")}, (reason, seen)
    assert torch.backends.mkldnn.enabled
