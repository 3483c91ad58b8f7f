"""bench/workloads.py's parts that run without the network: SB3 on each workload on a budget of
seconds (the protocol's bookkeeping, never the performance), the verification cost from handler
CPU, and the RESULT line's format. The network half is `decentrl demo --env`'s (tests/workers/cli)."""
import math
import re

from bench_modules import NUM, load

workloads = load("workloads")


def test_sb3_trains_each_workload_and_evaluates_after_the_update_past_each_checkpoint():
    for w, checkpoints in ((workloads.Workload("mujoco", "HalfCheetah-v5", 512, workloads.SB3_HALFCHEETAH), [512]),
                           (workloads.Workload("pixel", "MinAtar/Breakout-v1", 1024, workloads.SB3_ATARI), [1024])):
        curve = workloads.run_sb3(w, seed=1, eval_episodes=1, checkpoints=checkpoints)
        assert curve.steps == checkpoints and len(curve.returns) == 1 and math.isfinite(curve.final), (w.key, curve)


def test_each_mujoco_choice_gets_the_zoo_settings_of_its_preset_network():
    """SB3 learns with the preset's network shape (the learners differ in the implementation)."""
    from workers.rl.presets import preset_for

    assert set(workloads.SB3_MUJOCO) == {"HalfCheetah-v5", "Hopper-v5"}
    for env_id, hp in workloads.SB3_MUJOCO.items():
        policy, ppo = preset_for(env_id).policy, preset_for(env_id).ppo
        assert tuple(hp["net"]) == policy.hidden_sizes and hp["activation"] == policy.activation, env_id
        assert (hp["gamma"], hp["n_epochs"], hp["batch_size"]) == (ppo.gamma, ppo.update_epochs, ppo.batch_size)
        assert hp["normalize"] == policy.obs_norm == ppo.norm_reward, env_id


def test_verify_cost_is_one_validators_cpu_over_the_work_it_checked():
    cpu = {("s1", "sampler"): 4.0, ("s2", "sampler"): 4.0, ("t", "trainer"): 12.0,
           ("v1", "validator"): 1.0, ("v2", "validator"): 2.0, ("v3", "validator"): 3.0}
    assert workloads.verify_cost(cpu) == 2.0 / 20.0
    assert math.isnan(workloads.verify_cost({("v1", "validator"): 1.0}))


def test_result_line_names_every_figure_and_nan_for_a_ratio_that_says_nothing():
    line = workloads.result_line({"mujoco": (15.8, 742.1, 0.155), "pixel": (1.0, -0.5, 0.08)})
    m = re.fullmatch(rf"RESULT mujoco_return={NUM} mujoco_sb3={NUM} mujoco_ratio={NUM} pixel_return={NUM} "
                     rf"pixel_sb3=-{NUM} pixel_ratio={NUM} verify_cost_mujoco={NUM} verify_cost_pixel={NUM}", line)
    assert m, line
    assert "mujoco_ratio=0.021" in line and "pixel_ratio=nan" in line and "verify_cost_pixel=0.080" in line
