"""scripts/actors.py drives whole tasks on the shared fixtures: the accounting closes and the
protocol penalises a missed deadline and a vote against the quorum."""

import pytest
from brownie import accounts

from scripts.actors import (
    Protocol,
    ScriptedSampler,
    ScriptedTrainer,
    ScriptedValidator,
    fill_task,
    play_round,
    relay,
    sign_task,
)
from workers.protocol import Outcome, Role, Status

TOKEN = 10**18


@pytest.fixture
def proto(staked):
    return Protocol(staked)


def cast(proto, samplers, trainer, validators, miss=(), against=()):
    ss = [ScriptedSampler(f"S{i}", a, proto, miss_commit_rounds=miss if i == 1 else ()) for i, a in enumerate(samplers)]
    t = ScriptedTrainer("T", trainer, proto)
    vs = [ScriptedValidator(f"V{i}", a, proto, against_rounds=against if i == 2 else ())
          for i, a in enumerate(validators)]
    return ss, t, vs


def play_task(proto, task_id, nodes, keeper):
    for _ in range(proto.task(task_id)["numRounds"]):
        play_round(proto, task_id, nodes, keeper)
    return proto.task(task_id)


def settled(proto):
    return next(tx for _, tx in proto.txs if "TaskSettled" in tx.events).events["TaskSettled"]


def test_honest_task_pays_the_whole_bounty_70_20_10(proto, create_task, samplers, trainer, validators, outsider,
                                                     task_params):
    ss, t, vs = cast(proto, samplers, trainer, validators)
    task_id = create_task()
    fill_task(proto, task_id, ss, t, outsider)
    assert play_task(proto, task_id, [*ss, t, *vs], outsider)["status"] == Status.COMPLETED
    paid = [int(x) for x in proto.state.paidOf(task_id)]
    refund = settled(proto)["refund"]
    assert sum(paid) + refund == task_params.bounty
    assert paid[Role.TRAINER] == 7_000 * TOKEN and paid[Role.SAMPLER] == 2_000 * TOKEN
    assert 1_000 * TOKEN - 5 * 3 <= paid[Role.VALIDATOR] <= 1_000 * TOKEN  # thirds round down
    assert proto.dep.reputation.scoreOf(trainer) == 80


def test_a_missed_commit_is_penalised_and_a_dissent_is_unpaid(proto, create_task, samplers, trainer, validators,
                                                              outsider, task_params):
    ss, t, vs = cast(proto, samplers, trainer, validators, miss={2}, against={1})
    task_id = create_task()
    fill_task(proto, task_id, ss, t, outsider)
    play_task(proto, task_id, [*ss, t, *vs], outsider)
    vacated = [(ev["node"], ev["reason"]) for _, tx in proto.txs if "SlotVacated" in tx.events
               for ev in tx.events["SlotVacated"]]
    assert (samplers[1], Outcome.MISSED) in vacated
    assert validators[2] not in {node for node, _ in vacated}  # rejecting the accepted checkpoint is a dissent
    dissents = [(ev["validator"], ev["round"]) for _, tx in proto.txs if "Dissented" in tx.events
                for ev in tx.events["Dissented"]]
    assert dissents == [(validators[2], 1)]
    stake = proto.dep.stakes.stakeOf(validators[2], Role.VALIDATOR).dict()["staked"]
    assert stake == 5 * 200 * TOKEN  # not slashed
    earned = [ev["round"] for _, tx in proto.txs if "RewardEarned" in tx.events for ev in tx.events["RewardEarned"]
              if ev["node"] == validators[2]]
    assert 1 not in earned and earned  # paid for the rounds it agreed in, not for its dissent
    paid = [int(x) for x in proto.state.paidOf(task_id)]
    assert sum(paid) + settled(proto)["refund"] == task_params.bounty


def test_relayed_signed_task_with_permit(proto, funded, outsider, task_params):
    signer = accounts.add("0x" + "42" * 32)
    funded.token.transfer(signer, task_params.bounty, {"from": accounts[0]})
    signed = sign_task(signer.private_key, signer.address, task_params, funded.front, token=funded.token)
    task_id = relay(proto, outsider, signed)
    assert proto.task(task_id)["requester"] == signer.address
    assert funded.vault.escrowOf(task_id) == task_params.bounty
    assert signer.balance() == 0
