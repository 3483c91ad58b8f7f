"""The pricing arithmetic (Payouts.sol's split, the operator's price), the work a spec implies per
role and round, and the feasibility estimate (workers.payouts, workers.spec_work,
workers.node.market.pricing, .feasibility)."""
import dataclasses
from types import SimpleNamespace

import pytest

from workers.node.market.feasibility import estimate, infeasible, window_of
from workers.node.market.pricing import cost_of, drl, priced_out
from workers.payouts import per_payee, round_pool, slot_share
from workers.protocol import Role
from workers.rl.config import PPOConfig
from workers.spec import TaskSpec
from workers.spec_work import RoundWork, round_work

DRL = 10**18


def _task(bounty=100 * DRL, rounds=10, samplers=2, validators=3, commit=120, attest=60):
    slots = {Role.SAMPLER: samplers, Role.TRAINER: 1, Role.VALIDATOR: validators}
    return SimpleNamespace(bounty=bounty, shares_bps=(2000, 7000, 1000), num_rounds=rounds, num_samplers=samplers,
                           num_validators=validators, commit_window=commit, attest_window=attest,
                           slot_count=lambda r: slots[r])


def test_slot_share_is_the_role_share_per_round_per_slot():
    task = _task()
    assert slot_share(task, Role.TRAINER) == 7 * DRL  # 70 DRL over 10 rounds, one trainer
    assert slot_share(task, Role.SAMPLER) == DRL  # 20 DRL / 10 rounds / 2 samplers
    assert slot_share(task, Role.VALIDATOR) == DRL // 3  # floor, like Payouts.perPayee


def test_split_rounds_down_like_the_contract():
    assert round_pool(10_001, 7000, 3) == (10_001 * 7000 // 10_000) // 3 == 2333
    assert per_payee(2333, 2) == 1166 and per_payee(5, 0) == 0
    with pytest.raises(ValueError):
        round_pool(1, 7000, 0)


def test_round_work_per_role():
    spec = TaskSpec(steps_per_shard=2048, ppo=PPOConfig(update_epochs=20, batch_size=256),
                    challenges_per_sampler=4, challenges_per_trainer=4, steps_per_leaf=4)
    assert round_work(spec, Role.SAMPLER, 2) == RoundWork(2048, 2048, 0)
    assert round_work(spec, Role.TRAINER, 2) == RoundWork(4096, 0, 20 * 4096)
    # CartPole's episodes end by step 500: 4 replayed episodes of each of 2 shards are at most 2 x 2000
    # steps; the trainer's challenge re-executes 4 x 4 gradient steps of 256 samples
    assert round_work(spec, Role.VALIDATOR, 2) == RoundWork(2 * 2000 + 4096, 2 * 2000, 4096)
    short = dataclasses.replace(spec, steps_per_shard=100)
    assert round_work(short, Role.VALIDATOR, 1).rollout_steps == 100  # never more than the shard
    # with snapshots every 50 steps a challenge replays one 50-step segment, not an episode
    segments = dataclasses.replace(spec, steps_per_snapshot=50)
    assert round_work(segments, Role.VALIDATOR, 2) == RoundWork(2 * 4 * 50 + 4096, 2 * 4 * 50, 4096)
    # a spec's time_limit wrapper caps episodes below the registered 500
    capped = dataclasses.replace(spec, wrappers=({"name": "time_limit", "max_episode_steps": 100},))
    assert round_work(capped, Role.VALIDATOR, 2).rollout_steps == 2 * 4 * 100
    with pytest.raises(ValueError):
        round_work(spec, Role.SAMPLER, 0)


def test_cost_rounds_up_and_zero_price_takes_any_bounty():
    assert cost_of(DRL // 2, 70_000) == 35 * DRL
    assert cost_of(1, 1) == 1  # a price is a floor: never rounded down to free
    assert cost_of(0, 10**9) == 0
    assert priced_out(0, 0, 70_000) is None
    with pytest.raises(ValueError):
        cost_of(-1, 5)


def test_priced_out_says_share_price_and_steps():
    why = priced_out(2 * DRL // 100, 5 * DRL // 1000, 70_000)
    assert why == "bounty share 0.02 DRL/round < price 0.35 DRL for 70k steps (0.005 DRL per 1k)"
    assert priced_out(35 * DRL // 100, 5 * DRL // 1000, 70_000) is None  # exactly covered
    assert drl(0) == "0 DRL" and drl(1) == "1.00E-18 DRL"


def test_feasibility_compares_the_estimate_with_the_margin_of_the_window():
    task = _task(commit=120, attest=60)
    work = RoundWork(200_000, 200_000, 0)
    est = estimate(Role.SAMPLER, work, {"rollout": 490.0}, window_of(task, Role.SAMPLER), 0.5)
    assert round(est.seconds) == 408 and not est.feasible
    assert infeasible(est, Role.SAMPLER) == ("shards of 200k steps need ~408 s at 490 steps/s, commit window 120 s "
                                             "(at most 0.5 of it is used)")
    ok = estimate(Role.SAMPLER, RoundWork(2048, 2048, 0), {"rollout": 490.0}, 120, 0.5)
    assert ok.feasible and infeasible(ok, Role.SAMPLER) is None  # ~4.2 s <= 60 s
    # exactly at the margin is feasible
    assert estimate(Role.SAMPLER, RoundWork(60, 60, 0), {"rollout": 1.0}, 120, 0.5).feasible


def test_trainer_and_validator_estimates_use_their_rates_and_windows():
    task = _task(commit=100, attest=10)
    trainer = estimate(Role.TRAINER, RoundWork(4096, 0, 81_920), {"update": 1000.0}, window_of(task, Role.TRAINER), 1.0)
    assert trainer.seconds == pytest.approx(81.92) and trainer.feasible
    validator = estimate(Role.VALIDATOR, RoundWork(8096, 4000, 4096), {"replay": 400.0, "update": 1024.0},
                         window_of(task, Role.VALIDATOR), 0.5)
    assert validator.seconds == pytest.approx(14.0) and not validator.feasible
    assert "attest window 10 s" in infeasible(validator, Role.VALIDATOR)
