"""A node takes a slot only when its share of the bounty covers the operator's price for the work
the spec implies and the work fits the task's window at the node's measured speed; a slot it
passes over is recorded with why (workers.node.market.claims)."""
from types import SimpleNamespace

from workers.node.config import NodeSettings
from workers.node.market import claims
from workers.node.market.book import MarketBook
from workers.node.market.throughput import arch_of
from workers.protocol import Role
from workers.spec import DEMO_CARTPOLE

DRL = 10**18


def _ctx(tmp_path, **prices):
    settings = NodeSettings(rpc_url="http://127.0.0.1:8545", deployment=tmp_path / "d.json", node_dir=tmp_path,
                            store_dir=tmp_path / "store", **prices)
    return SimpleNamespace(settings=settings, node_dir=tmp_path, _cache={})


def _task(bounty=100 * DRL, commit=120, attest=60):
    return SimpleNamespace(task_id=7, bounty=bounty, shares_bps=(2000, 7000, 1000), num_rounds=10, num_samplers=2,
                           num_validators=3, commit_window=commit, attest_window=attest,
                           slot_count=lambda r: {Role.SAMPLER: 2, Role.TRAINER: 1, Role.VALIDATOR: 3}[r])


def _rates(tmp_path, **per_s):
    book = MarketBook(tmp_path)
    for kind, rate in per_s.items():
        book.calibrated(kind, DEMO_CARTPOLE.env_id, arch_of(DEMO_CARTPOLE), rate)


def test_priced_out(tmp_path):
    # a sampler slot pays 20 DRL / 10 rounds / 2 = 1 DRL a round for 2,048 steps; at 1 DRL per 1k it asks 2.048
    ctx = _ctx(tmp_path, price_sampler=DRL)
    _rates(tmp_path, rollout=10_000)
    code, why = claims.refusal(ctx, _task(), DEMO_CARTPOLE, Role.SAMPLER)
    assert code == "priced-out"
    assert why == "bounty share 1 DRL/round < price 2.048 DRL for 2k steps (1 DRL per 1k)"
    assert claims.refusal(ctx, _task(bounty=300 * DRL), DEMO_CARTPOLE, Role.SAMPLER) is None  # 3 DRL covers it


def test_infeasible(tmp_path):
    ctx = _ctx(tmp_path)
    _rates(tmp_path, rollout=20.0)  # 2,048 steps at 20/s: ~102 s, over half of a 120 s window
    code, why = claims.refusal(ctx, _task(commit=120), DEMO_CARTPOLE, Role.SAMPLER)
    assert code == "infeasible"
    assert why.startswith("shards of 2k steps need ~102 s at 20 steps/s, commit window 120 s")
    assert claims.refusal(ctx, _task(commit=300), DEMO_CARTPOLE, Role.SAMPLER) is None


def test_feasible_with_a_calibration_of_its_own(tmp_path):
    ctx = _ctx(tmp_path, price_trainer=DRL // 1000)  # 0.001 DRL per 1k: 4,096 steps cost 0.004 DRL of 7
    assert claims.refusal(ctx, _task(), DEMO_CARTPOLE, Role.TRAINER) is None
    book = MarketBook(tmp_path)  # the calibration was measured and kept for the next task
    assert {r[0] for r in book.rates()} == {"update"}  # a trainer's work is priced by its updates only
    assert all(r[4] == "calibrated" and r[3] > 0 for r in book.rates())
    # drawn as a validator, the same node measures the one rate it lacks (replays) and keeps its update rate
    (update_rate,) = [r[3] for r in book.rates()]
    assert claims.refusal(ctx, _task(), DEMO_CARTPOLE, Role.VALIDATOR) is None
    assert {r[0]: r[3] for r in MarketBook(tmp_path).rates()}.keys() == {"update", "replay"}
    assert [r[3] for r in MarketBook(tmp_path).rates() if r[0] == "update"] == [update_rate]


def test_passed_over_is_recorded(tmp_path, monkeypatch):
    ctx = _ctx(tmp_path)
    counted = []
    monkeypatch.setattr(claims.metrics, "passed_over", lambda role, reason: counted.append((role, reason)))
    claims.pass_over(ctx, 9, Role.SAMPLER, "infeasible", "shards of 200k steps need ~410 s")
    assert counted == [("sampler", "infeasible")]
    (record,) = MarketBook(tmp_path).passed_over()
    assert (record.task_id, record.role, record.code, record.text) == (9, "sampler", "infeasible",
                                                                        "shards of 200k steps need ~410 s")


def test_a_drawn_validator_is_judged_by_price_and_only_by_a_speed_it_measured(tmp_path):
    """A validator cannot decline its draw: the check only flags it, and never times itself on the
    vote's path (calibrate=False): with no rate yet, only the price is judged."""
    # a validator slot pays 10 DRL / 10 rounds / 3 = 0.333.. DRL a round for 2 x 2000 replayed steps and
    # 4 x 4 x 256 re-trained samples (8,096 priced steps); at 0.1 DRL per 1k it asks 0.8096
    ctx = _ctx(tmp_path, price_validator=DRL // 10)
    code, why = claims.refusal(ctx, _task(), DEMO_CARTPOLE, Role.VALIDATOR, calibrate=False)
    assert code == "priced-out" and why.startswith("bounty share 0.333333 DRL/round < price 0.8096 DRL for 8.1k")
    free = _ctx(tmp_path)
    assert claims.refusal(free, _task(attest=1), DEMO_CARTPOLE, Role.VALIDATOR, calibrate=False) is None
    assert MarketBook(tmp_path).rates() == []  # nothing was timed
    _rates(tmp_path, replay=1000.0, update=10_000.0)  # measured earlier (its jobs, another role's claim)
    # 4,000 replayed steps at 1,000/s and 4,096 samples at 10,000/s: ~4.4 s, over half of 8 s
    code, why = claims.refusal(free, _task(attest=8), DEMO_CARTPOLE, Role.VALIDATOR, calibrate=False)
    assert code == "infeasible" and "attest window 8 s" in why
    assert claims.refusal(free, _task(attest=10), DEMO_CARTPOLE, Role.VALIDATOR, calibrate=False) is None
