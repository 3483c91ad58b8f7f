"""bench/incentives.py's accounting, without a network: a node's utility for a round (pay kept,
slashes, bonds, dispute awards, CPU at the stated price), the strategy lines it prints (a strategy
beside the honest node of its role: of the same rounds, or of the honest rounds where its rounds
have none) and the RESULT line's figures. Then the bench run for real at its smallest (a whole-shard
cheat and a lazy validator, one round each) to the RESULT line."""

import importlib.util
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKEN = 10**18


def load():
    spec = importlib.util.spec_from_file_location("bench_incentives", ROOT / "bench" / "incentives.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


inc = load()


def seat(strategy, role, strategic, drl=0.0, pay=100.0, cpu_s=0.0, slashed=0.0):
    return inc.Seat(strategy, role, strategic,
                    inc.Take(earned=int(drl * TOKEN), slashed=int(slashed * TOKEN), cpu_s=cpu_s), pay)


def test_utility_is_pay_kept_minus_slashes_and_bonds_plus_awards_minus_cpu():
    take = inc.Take(earned=30 * TOKEN, reclaimed=30 * TOKEN, slashed=5 * TOKEN, bonds=100 * TOKEN,
                    owed=160 * TOKEN, cpu_s=2.5)
    # pay reclaimed, slashed 5, bond 100 posted and returned with an award of 60, 2.5 CPU-s at 2 DRL/s
    assert take.utility(price=2.0) == pytest.approx(0 - 5 - 100 + 160 - 5)
    assert inc.Take(earned=30 * TOKEN, cpu_s=1.0).utility(price=0.0) == pytest.approx(30)


def test_a_cheat_is_compared_with_the_honest_node_of_its_own_rounds():
    seats = [seat("honest", "sampler", False, drl=90, cpu_s=1), seat("honest", "trainer", False, drl=600, cpu_s=10),
             seat("rewards", "sampler", True, drl=90, pay=90, cpu_s=1), seat("rewards", "sampler", False, drl=80,
                                                                                pay=90, cpu_s=1),
             seat("rewards", "sampler", True, drl=0, pay=90, cpu_s=1, slashed=45),
             seat("rewards", "sampler", False, drl=90, pay=90, cpu_s=1)]
    [_, _, line] = inc.summarize(seats, price=1.0)
    assert (line.strategy, line.role, line.rounds) == ("rewards", "sampler", 2)
    assert line.utility == pytest.approx(((90 - 1) + (0 - 45 - 1)) / 2)
    assert line.honest == pytest.approx(((80 - 1) + (90 - 1)) / 2)
    assert line.advantage == pytest.approx((line.utility - line.honest) / 90)


def test_a_trainer_cheat_is_compared_with_the_honest_rounds_trainer():
    seats = [seat("honest", "trainer", False, drl=600, cpu_s=10), seat("honest", "trainer", False, drl=600, cpu_s=20),
             seat("skipped", "trainer", True, drl=0, pay=600, cpu_s=15, slashed=50),
             seat("skipped", "sampler", False, drl=90)]
    line = next(ln for ln in inc.summarize(seats, price=1.0) if ln.strategy == "skipped")
    assert line.honest == pytest.approx(600 - 15) and line.utility == pytest.approx(-65)


def test_the_result_line_takes_the_worst_cheat_the_best_lazy_ratio_and_counts_honest_slashes():
    seats = [seat("honest", "sampler", False, drl=90), seat("honest", "validator", False, drl=30, cpu_s=10),
             seat("a", "sampler", True, drl=0, pay=90), seat("a", "sampler", False, drl=90, pay=90),
             seat("b", "sampler", True, drl=90, pay=90), seat("b", "sampler", False, drl=90, pay=90),
             seat("b", "validator", False, drl=0, slashed=15),
             seat("lazy", "validator", True, drl=30, pay=30), seat("lazy", "validator", False, drl=30, pay=30,
                                                                   cpu_s=10)]
    lines = inc.summarize(seats, price=1.0)
    out = inc.result(lines, rounds=3, jurors_slashed=1)
    match = re.fullmatch(r"RESULT cheat_advantage_max=(\S+) lazy_validator_max=(\S+) honest_slashed=(\d+) rounds=3",
                         out)
    assert match, out
    assert float(match[1]) == pytest.approx(0.0)  # "b" earned as the honest sampler did
    assert float(match[2]) == pytest.approx(30 / 20, abs=1e-3)
    assert int(match[3]) == 2  # the honest validator of "b"'s round and a juror


def test_no_strategy_of_a_kind_prints_nan():
    lines = inc.summarize([seat("honest", "sampler", False, drl=90)], price=1.0)
    out = inc.result(lines, rounds=1)
    assert "cheat_advantage_max=nan" in out and "lazy_validator_max=nan" in out
    assert math.isnan(float(out.split("cheat_advantage_max=")[1].split()[0]))


def test_the_bench_plays_a_cheat_and_a_lazy_validator_to_its_result_line():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "incentives.py"), "--rounds", "1",
                          "--validator-rounds", "1", "--only", "fabricated rewards,accept-all"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    match = re.fullmatch(r"RESULT cheat_advantage_max=(\S+) lazy_validator_max=(\S+) honest_slashed=(\d+) rounds=3",
                         lines[-1])
    assert match, lines[-1]
    # a whole-shard cheat is caught by every challenge: rejected, slashed, unpaid
    row = next(line for line in lines if line.startswith("fabricated rewards "))
    assert " R " in row and float(match[1]) < 0
    assert int(match[3]) == 0
    assert sum(line.startswith("RESULT") for line in lines) == 1
