"""Do CUDA-trained rounds pass a CPU validator, and how much of the stated CUDA tolerance do they use?

A validator re-executes a trainer's challenged gradient steps on its CPU. A CPU-trained trace must
match bit for bit; a CUDA-trained one within trace_check.GPU_ATOL + GPU_RTOL x the transition's
largest parameter change (Adam moments: x their largest magnitude), and its pre-update data
(old log-probs, values) within workers.rl.replay's tolerances. This script runs honest rounds
through the roles' own code: samplers on the CPU, the trainer with device="cuda", and a CPU
validator (`verify_round`) that re-executes EVERY transition and recomputes EVERY data chunk (the
spec's challenges_per_trainer raised to its maximum, so no step escapes the comparison). It
prints, per round, whether the validator accepts and the largest error as a fraction of its
tolerance ("used": 1 is the bound; an honest GPU should stay far below it).

Three tasks: the demo's CartPole spec (workers.spec.DEMO_CARTPOLE, all its rounds, then the trained
policy's evaluation), the same task with a wider policy (MLP 512x512, 2 rounds), where longer
float32 reductions differ more between the two devices, and the Nature CNN (`run_cnn`, 2 rounds)
at the rl-zoo's Atari PPO settings on synthetic 84x84x4 uint8 frames: the trainer (the roles'
`train_episodes`) and the trace check are the network's; the frames are random, as the numerical
comparison does not depend on what they show (convolutions run in IEEE float32, no TF32:
ppo.ieee_float32).

Without a CUDA device the script says so and runs the trainer on the CPU (every round must then be
accepted with 0 of the tolerance used: the CPU path is bit for bit). The last line is
`RESULT device=<cuda|cpu> rounds_accepted=<k>/<n> tolerance_used_max=<x>`.

    .venv/bin/python bench/gpu_verify.py [--rounds N (demo task; default: the demo's 5)] [--wide-rounds 2]
                                          [--cnn-rounds 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def run_task(spec, rounds: int, device: str, out=print, task_id: int = 1) -> tuple[list[tuple[bool, float]], bytes]:
    """Honest rounds of `spec` trained on `device`, each verified on the CPU: ([(accepted, used)],
    final checkpoint bundle)."""
    from workers.roles.local_round import run_round
    from workers.roles.validator import verify_round

    spec = dataclasses.replace(spec, challenges_per_trainer=10_000)  # every transition and chunk
    prev, outcomes = None, []
    for r in range(rounds):
        t0 = time.perf_counter()
        done = run_round(spec, task_id, r, prev, device=device)
        t1 = time.perf_counter()
        ckpt = done.checkpoint
        verdict = verify_round(spec, task_id, r, prev, done.revealed, (ckpt.root, ckpt.bundle), bytes(32), done.fetch)
        t2 = time.perf_counter()
        judgement = verdict.trainer
        accepted = judgement.accepted and all(j.accepted for j in verdict.samplers.values())
        used = judgement.tolerance_used or 0.0  # None: trained on the CPU, re-executed bit for bit
        outcomes.append((accepted, used))
        out(f"  round {r}: {'ACCEPTED' if accepted else 'REJECTED'}, tolerance used {used:.3g} "
            f"(sample on cpu and train on {device} {t1 - t0:.1f} s, verify on cpu {t2 - t1:.1f} s)"
            + ("" if accepted else f": {judgement.reason}"))
        prev = ckpt.bundle
    return outcomes, prev


def run_cnn(rounds: int, device: str, out=print, kind: str = "nature_cnn", shape=(84, 84, 4), samples: int = 1024,
            batch_size: int = 256, update_epochs: int = 4) -> list[tuple[bool, float]]:
    """Honest rounds of a CNN policy on synthetic frames, trained on `device` (the roles' trainer,
    a leaf every 4 steps) and each checked on the CPU by the trace check with every transition and
    data chunk re-executed: [(accepted, used)]."""
    import types

    from bench.gpu import synthetic_episodes
    from workers.rl.config import PolicyConfig, PPOConfig
    from workers.rl.envs import DISCRETE, SpaceSpec
    from workers.rl.policy import from_bytes, make_policy, to_bytes
    from workers.rl.ppo import TrainState
    from workers.roles.determinism import single_thread
    from workers.roles.trace_check import check_trace
    from workers.roles.trainer import train_episodes
    from workers.storage import cid as cids

    # what the trainer and the trace check read of a task spec
    spec = types.SimpleNamespace(
        ppo=PPOConfig(learning_rate=2.5e-4, final_learning_rate=2.5e-4, batch_size=batch_size,
                      update_epochs=update_epochs, ent_coef=0.01, clip_coef=0.1),
        steps_per_leaf=4, challenges_per_trainer=10_000, digest=lambda: bytes(32))
    space = SpaceSpec(obs_dim=shape[0] * shape[1] * shape[2], action_kind=DISCRETE, action_dim=6,
                      obs_shape=tuple(shape), obs_dtype="uint8")
    policy, state, outcomes = make_policy(space, PolicyConfig(kind=kind, seed=0)), TrainState(), []
    for r in range(rounds):
        episodes = synthetic_episodes(policy, samples, ep_len=128, seed=r)
        incoming, start = from_bytes(to_bytes(policy)), TrainState.from_bytes(state.to_bytes())
        t0 = time.perf_counter()
        ckpt = train_episodes(spec, 3, r, policy, state, None, [(0, bytes(32))], episodes, device=device)
        t1 = time.perf_counter()
        stored = {cids.compute(b): b for b in ckpt.stored}
        with single_thread():  # as verify_trainer: a CPU re-run is bit for bit only with the trainer's one thread
            accepted, reason, used, _, _ = check_trace(spec, 3, r, ckpt, incoming, start, episodes, stored.get,
                                                       bytes(32))
        t2 = time.perf_counter()
        used = used or 0.0
        outcomes.append((accepted, used))
        out(f"  round {r}: {'ACCEPTED' if accepted else 'REJECTED'}, tolerance used {used:.3g} "
            f"(train on {device} {t1 - t0:.1f} s, verify on cpu {t2 - t1:.1f} s)" + ("" if accepted else f": {reason}"))
        policy, state = from_bytes(ckpt.policy_bytes), ckpt.train_state()
    return outcomes


def run(demo_rounds: int | None = None, wide_rounds: int = 2, cnn_rounds: int = 2, out=print) -> tuple[list, str]:
    import torch

    from workers.demo.run import TASK
    from workers.rl.evaluate import evaluate
    from workers.rl.policy import from_bytes
    from workers.roles import trainer
    from workers.spec import DEMO_CARTPOLE

    device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda":
        out(f"GPU: {torch.cuda.get_device_name(0)} (torch {torch.__version__}, CUDA {torch.version.cuda}); "
            f"validator on the cpu")
    else:
        out(f"NO GPU: torch {torch.__version__} sees no CUDA device; the trainer runs on the cpu "
            f"(a CPU trace must verify bit for bit)")
    outcomes = []
    rounds = demo_rounds if demo_rounds is not None else TASK["num_rounds"]
    out(f"demo task (MLP {'x'.join(map(str, DEMO_CARTPOLE.hidden_sizes))}), {rounds} rounds:")
    demo, final = run_task(DEMO_CARTPOLE, rounds, device, out)
    outcomes += demo
    result = evaluate(from_bytes(trainer.unbundle_checkpoint(final).policy_bytes), DEMO_CARTPOLE.env_id,
                      DEMO_CARTPOLE.eval_episodes)
    out(f"  the {device}-trained policy's evaluation: mean return {result.mean_return:.1f} "
        f"of {DEMO_CARTPOLE.eval_episodes} episodes")
    if wide_rounds:
        wide = dataclasses.replace(DEMO_CARTPOLE, hidden_sizes=(512, 512))
        out(f"wide policy (MLP 512x512), {wide_rounds} rounds:")
        outcomes += run_task(wide, wide_rounds, device, out, task_id=2)[0]
    if cnn_rounds:
        out(f"Nature CNN on synthetic 84x84x4 frames (minibatch 256, 4 epochs, 1024 samples), {cnn_rounds} rounds:")
        outcomes += run_cnn(cnn_rounds, device, out)
    accepted = sum(a for a, _ in outcomes)
    used = max(u for _, u in outcomes)
    return outcomes, f"RESULT device={device} rounds_accepted={accepted}/{len(outcomes)} tolerance_used_max={used:.3g}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=None, help="rounds of the demo task (default: the demo's 5)")
    ap.add_argument("--wide-rounds", type=int, default=2, help="rounds of the 512x512 task (0: skip it)")
    ap.add_argument("--cnn-rounds", type=int, default=2, help="rounds of the Nature CNN task (0: skip it)")
    args = ap.parse_args()
    _, result = run(args.rounds, args.wide_rounds, args.cnn_rounds, out=lambda s: print(s, flush=True))
    print(result)


if __name__ == "__main__":
    main()
