"""Smoke tests of bench/ppo_vs_sb3.py and bench/gpu.py: each script's core function on a budget of
seconds, checking the protocol's bookkeeping and the RESULT line's format (never the performance)."""

import dataclasses
import math
import re

import torch
from bench_modules import NUM, load

vs = load("ppo_vs_sb3")
gpu = load("gpu")
gpu_verify = load("gpu_verify")


def tiny_preset():
    from workers.rl.presets import CARTPOLE
    return dataclasses.replace(CARTPOLE, steps_per_shard=128,
                               ppo=dataclasses.replace(CARTPOLE.ppo, batch_size=64, update_epochs=2))


def parse_vs(line):
    m = re.fullmatch(rf"RESULT wall_ratio={NUM} steps_ratio={NUM}", line)
    assert m, line
    return float(m.group(1)), float(m.group(3))


def test_ppo_vs_sb3_solved_at_first_check():
    # Every CartPole episode returns >= 1, so a target of 1 is met at the first check by both.
    lines = []
    protocol = vs.Protocol(target=1.0, eval_episodes=2, check_every=256, budget=1024)
    runs, result = vs.compare([3], protocol, threads=1, preset=tiny_preset(), out=lines.append)
    assert [(r.learner, r.seed, r.solved, r.env_steps, r.checks) for r in runs] == [
        ("ours", 3, True, 256, 1), ("sb3", 3, True, 256, 1)]  # ours: 2 x 128 steps; SB3: 8 x 32
    assert all(0 < r.wall_s < math.inf and 0 < r.cpu_s < math.inf for r in runs)
    wall_ratio, steps_ratio = parse_vs(result)
    assert steps_ratio == 1.0 and 0 < wall_ratio < math.inf
    assert any(line.startswith(" med |") for line in lines) and torch.get_num_threads() == 1


def test_ppo_vs_sb3_unsolved_within_the_budget_is_inf_and_the_ratios_nan():
    protocol = vs.Protocol(target=475.0, eval_episodes=2, check_every=256, budget=512)
    runs, result = vs.compare([1], protocol, threads=1, preset=tiny_preset(), out=lambda s: None)
    for r in runs:
        assert not r.solved and r.env_steps == r.wall_s == r.cpu_s == math.inf
        assert r.total_steps == 512 and r.checks == 2  # checked at 256 and at the budget
    assert result == "RESULT wall_ratio=nan steps_ratio=nan"


def test_the_shared_evaluation_matches_workers_rl_evaluate():
    from workers.rl.envs import make_env, space_spec
    from workers.rl.evaluate import evaluate
    from workers.rl.policy import PolicyConfig, make_policy

    env = make_env("CartPole-v1")
    policy = make_policy(space_spec(env), PolicyConfig(seed=5))
    env.close()
    ours = evaluate(policy, "CartPole-v1", episodes=3, seed=vs.EVAL_SEED).mean_return
    act = lambda obs: policy.deterministic_action(torch.from_numpy(obs)).numpy()  # noqa: E731
    assert vs.evaluate_fn(act, 3) == ours


def test_gpu_bench_reports_every_policy_and_the_result_line():
    lines = []
    tiny = {"cartpole": gpu.Workload("cartpole", (64, 64), 64, 2, 512),
            "nature_cnn": gpu.Workload("nature_cnn", (512,), 4, 1, 8, kind="nature_cnn"),
            "large": gpu.Workload("large", (128, 128), 128, 1, 1024)}
    figures, result = gpu.run(rounds=1, threads=1, override=tiny, out=lines.append)
    m = re.fullmatch(rf"RESULT gpu_samples_s={NUM} cpu_samples_s={NUM}", result)
    assert m, result
    assert set(figures) == {"cartpole", "nature_cnn", "large"} and figures["nature_cnn"][1] > 0
    assert any("nature_cnn 84x84x4 minibatch     4" in line for line in lines), lines
    assert float(m.group(3)) == round(figures["large"][1]) > 0
    if torch.cuda.is_available():
        assert float(m.group(1)) > 0
    else:
        assert m.group(1) == "nan" and lines[0].startswith("NO GPU")
    assert "RESULT below is for the 'large' policy" in lines


def test_synthetic_episodes_total_the_requested_samples():
    tiny = gpu.Workload("t", (8,), 16, 1, 1234)
    from workers.rl.envs import make_env, space_spec
    from workers.rl.policy import PolicyConfig, make_policy

    env = make_env("CartPole-v1")
    policy = make_policy(space_spec(env), PolicyConfig(hidden_sizes=tiny.hidden_sizes))
    env.close()
    eps = gpu.synthetic_episodes(policy, tiny.samples)
    assert sum(e.steps for e in eps) == 1234 and [e.end for e in eps] == ["terminated"] * 2 + ["cut"]


def test_gpu_verify_bench_checks_every_round_and_reports_the_tolerance_used():
    lines = []
    outcomes, result = gpu_verify.run(demo_rounds=1, wide_rounds=0, cnn_rounds=0, out=lines.append)
    m = re.fullmatch(rf"RESULT device=(cuda|cpu) rounds_accepted=(\d+)/(\d+) tolerance_used_max={NUM}", result)
    assert m, result
    assert (int(m.group(2)), int(m.group(3))) == (1, 1) and outcomes[0][0]
    assert any(line.startswith("  round 0: ACCEPTED") for line in lines)
    if not torch.cuda.is_available():  # a CPU trace verifies bit for bit: no tolerance used
        assert m.group(1) == "cpu" and float(m.group(4)) == 0 and lines[0].startswith("NO GPU")
    else:
        assert m.group(1) == "cuda" and 0 <= float(m.group(4)) <= 1


def test_gpu_verify_bench_checks_a_cnn_trace():
    lines = []
    outcomes = gpu_verify.run_cnn(2, "cuda" if torch.cuda.is_available() else "cpu", lines.append,
                                  kind="minatar_cnn", shape=(10, 10, 4), samples=48, batch_size=16, update_epochs=2)
    assert [accepted for accepted, _ in outcomes] == [True, True], lines
    assert all(line.startswith(f"  round {r}: ACCEPTED") for r, line in enumerate(lines))
