"""The node's market records (rates: calibration then a moving average of jobs; the passed-over
record, bounded) and the cooperative deadline (workers.deadline)."""
import time

import pytest

from workers import deadline
from workers.node.market import prices
from workers.node.market.book import EMA_WEIGHT, PASSED_KEPT, MarketBook


def test_a_job_rate_replaces_the_calibration_then_averages(tmp_path):
    book = MarketBook(tmp_path)
    assert book.rate("rollout", "CartPole-v1", "64x64-tanh") is None
    book.calibrated("rollout", "CartPole-v1", "64x64-tanh", 10_000)
    book.calibrated("rollout", "CartPole-v1", "64x64-tanh", 1)  # a calibration never overwrites
    assert book.rate("rollout", "CartPole-v1", "64x64-tanh") == 10_000
    book.observe("rollout", "CartPole-v1", "64x64-tanh", 4000, 2.0)
    assert book.rate("rollout", "CartPole-v1", "64x64-tanh") == 2000
    book.observe("rollout", "CartPole-v1", "64x64-tanh", 1000, 1.0)
    averaged = EMA_WEIGHT * 1000 + (1 - EMA_WEIGHT) * 2000
    assert book.rate("rollout", "CartPole-v1", "64x64-tanh") == pytest.approx(averaged)
    book.observe("rollout", "CartPole-v1", "64x64-tanh", 0, 1.0)  # nothing measured: unchanged
    assert book.rate("rollout", "CartPole-v1", "128x128-tanh") is None  # per architecture


def test_passed_over_keeps_the_newest_one_per_task_and_role(tmp_path):
    book = MarketBook(tmp_path)
    for task in range(PASSED_KEPT + 5):
        book.pass_over(task, "sampler", "priced-out", f"task {task}")
    book.pass_over(PASSED_KEPT + 4, "sampler", "infeasible", "again")  # replaces that task's record
    kept = book.passed_over()
    assert len(kept) == PASSED_KEPT
    assert (kept[0].task_id, kept[0].code, kept[0].text) == (PASSED_KEPT + 4, "infeasible", "again")
    assert min(p.task_id for p in kept) == 5
    assert len(MarketBook(tmp_path).passed_over(3)) == 3  # another process reads the same file


def test_prices_file_defaults_and_round_trip(tmp_path):
    assert prices.load(tmp_path) == {"sampler": 0, "trainer": 0, "validator": 0, "feasibility_margin": 0.5}
    prices.save(tmp_path, {"sampler": 5, "trainer": 7, "validator": 0, "feasibility_margin": 0.25})
    assert prices.load(tmp_path) == {"sampler": 5, "trainer": 7, "validator": 0, "feasibility_margin": 0.25}
    (tmp_path / prices.FILE).write_text('{"samplr": 1}')
    with pytest.raises(ValueError, match="unknown keys"):
        prices.load(tmp_path)


def test_check_raises_only_inside_a_bound_past_its_time():
    deadline.check()  # no bound: never raises
    assert deadline.seconds_left() is None
    with deadline.work_until(time.time() + 60, "outer"):
        deadline.check()
        with deadline.work_until(time.time() - 1, "inner"):  # the earlier bound wins
            with pytest.raises(deadline.DeadlinePassed, match="inner"):
                deadline.check()
        with deadline.work_until(time.time() + 600, "later"):  # a later bound does not extend it
            assert deadline.seconds_left() < 61
        deadline.check()
    deadline.check()


def test_a_rollout_stops_at_its_deadline():
    from workers.rl.envs import env_space_spec
    from workers.rl.policy import make_policy
    from workers.rl.rollout import rollout

    policy = make_policy(env_space_spec("CartPole-v1"))
    with deadline.work_until(time.time() - 0.001, "rollout"), pytest.raises(deadline.DeadlinePassed):
        rollout(policy, "CartPole-v1", task_seed=0, round_=0, shard=0, num_steps=10_000)
    assert len(rollout(policy, "CartPole-v1", task_seed=0, round_=0, shard=0, num_steps=64)) >= 1


def test_a_recheck_that_moves_the_deadline_later_extends_the_bound():
    moved = [time.time() + 60]
    with deadline.work_until(time.time() - 1, "paused", recheck=lambda: moved[0]):
        deadline.check()  # the chain's deadline moved later: work on
        assert 59 < deadline.seconds_left() <= 60
        moved[0] = None  # the phase is over
        with deadline.work_until(time.time() - 1, "inner"), pytest.raises(deadline.DeadlinePassed):
            deadline.check()
