"""workers/rl/ppo.py MinibatchSchedule: the one rule for which samples each gradient step trains on,
which the trainer (ppo.train_round) and the validator's re-execution (workers.roles.trace_check)
both follow."""

import dataclasses

import pytest
import torch

from workers.rl.policy import from_bytes, to_bytes
from workers.rl.ppo import (
    MinibatchSchedule,
    TrainState,
    adam_state,
    gradient_step,
    make_batch,
    make_optimizer,
    pre_update,
    train_round,
)
from workers.rl.presets import CARTPOLE
from workers.rl.rollout import rollout

CPU = dataclasses.replace(CARTPOLE.ppo, device="cpu")


@pytest.mark.parametrize("n, batch_size, rows", [
    (128, 64, [(0, 64), (64, 128)]),
    (129, 64, [(0, 64), (64, 128)]),  # a last minibatch of 1 sample is skipped
    (130, 64, [(0, 64), (64, 128), (128, 192)]),  # one of 2 is not
    (1, 64, []),
])
def test_each_epoch_runs_the_minibatches_of_at_least_two_samples(n, batch_size, rows):
    schedule = MinibatchSchedule(n, dataclasses.replace(CPU, batch_size=batch_size, update_epochs=3), 0)
    assert schedule.steps == [(e, slice(a, b)) for e in range(3) for a, b in rows]
    assert [schedule.ends_epoch(s) for s in range(len(schedule))] == [i == len(rows) - 1 for _ in range(3)
                                                                      for i in range(len(rows))]


def test_permutations_come_from_the_seed_and_the_update_count_in_any_order():
    config = dataclasses.replace(CPU, seed=7, update_epochs=4)
    schedule = MinibatchSchedule(100, config, 5)
    in_order = [schedule.permutation(e).clone() for e in range(4)]
    again = MinibatchSchedule(100, config, 5)
    assert torch.equal(again.permutation(2), in_order[2]) and torch.equal(again.permutation(0), in_order[0])
    assert torch.equal(again.indices(len(again) - 1), in_order[3][again.steps[-1][1]])
    assert not torch.equal(MinibatchSchedule(100, config, 6).permutation(0), in_order[0])
    assert not torch.equal(MinibatchSchedule(100, dataclasses.replace(config, seed=8), 5).permutation(0), in_order[0])


@pytest.mark.parametrize("changes", [
    dict(batch_size=64),
    dict(batch_size=51, update_epochs=3),  # 256 samples: a last minibatch of 1, skipped
    dict(batch_size=85),  # a last minibatch of 1 as well, with 3 of 85
    dict(batch_size=40, update_epochs=6, target_kl=0.002),  # stops at an epoch's end
])
def test_the_trainer_takes_exactly_the_schedule_s_steps(policy_for, changes):
    """Re-running train_round's round step by step from the schedule, as a validator does, gives
    its parameters and Adam state bit for bit: fails if the trainer derived minibatches otherwise."""
    config = dataclasses.replace(CPU, **changes)
    policy = policy_for("CartPole-v1", seed=1)
    episodes = rollout(policy, "CartPole-v1", task_seed=1, round_=0, shard=0, num_steps=256)
    replica, start = from_bytes(to_bytes(policy)), TrainState(updates=9)
    state = TrainState(updates=9)
    trained, stats = train_round(policy, episodes, config, state)

    batch = make_batch(episodes, *pre_update(replica, episodes, torch.device("cpu")), config)
    optimizer = make_optimizer(replica, start, config)
    schedule = MinibatchSchedule(len(batch), config, start.updates)
    tensors = (batch.obs, batch.actions, batch.old_logp, batch.old_values, batch.advantages, batch.returns)
    steps = 0
    for s in range(len(schedule)):
        kl = gradient_step(replica, optimizer, tuple(t[schedule.indices(s)] for t in tensors), config)["approx_kl"]
        steps += 1
        if schedule.stops_after(s, kl):
            break
    assert stats["gradient_steps"] == steps == state.updates - start.updates
    assert (steps < len(schedule)) == ("target_kl" in changes)
    assert to_bytes(trained) == to_bytes(replica)
    ours = TrainState(adam=adam_state(optimizer))
    assert ours.to_bytes() == TrainState(adam=state.adam).to_bytes()
