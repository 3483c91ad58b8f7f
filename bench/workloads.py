"""The issue-40 workloads trained through the real network, against Stable-Baselines3's PPO.

    .venv/bin/python bench/workloads.py [--mujoco-env HalfCheetah-v5|Hopper-v5] [--mujoco-steps 40960]
                                         [--pixel-steps 98304] [--seed 1] [--only mujoco|pixel]
                                         [--out reports/bench-workloads]

For each workload (a MuJoCo task, HalfCheetah-v5 or Hopper-v5, and a pixel task, MinAtar
Breakout), on the same budget of environment steps and the same seed:

* **ours**: the workload's preset spec (`decentrl task spec --env ID`) run as a task through the
  whole local network that `decentrl demo` starts (workers.demo.run.Demo: anvil, Redis, the store,
  2 samplers, 1 trainer and 3 validators as Celery worker processes, every round committed,
  revealed, re-executed by sampled checks, attested and finalized on chain). The task has
  budget / (2 x steps_per_shard) rounds; each accepted checkpoint is evaluated as it lands.
* **SB3**: stable_baselines3.PPO at rl-zoo's hyperparameters (hyperparams/ppo.yml: HalfCheetah-v3's
  or Hopper-v3's tuned entry with VecNormalize; for MinAtar, which ppo.yml has no entry for, its
  `atari` entry) on the same environment (built by workers.rl.envs, so the same wrappers), with the same policy
  network shape as our preset, evaluated at the same step counts.

Evaluation (identical code for both): `--eval-episodes` episodes with deterministic actions, env
seeds 10_000, 10_001, ...; a learner's return is the evaluation after its last update.

Verification cost: each node's `decentrl_handler_cpu_seconds` (CPU time of its handler runs, read
from the node's metrics folder after the run): one validator's CPU over the CPU of the work it
checked (both samplers' and the trainer's handlers), averaged over the 3 validators. Handlers
only: the nodes' idle processes (watchers polling the chain) are not in either side.

Writes the learning curves (PNG and JSON) to --out and ends with one line

    RESULT mujoco_return=<ours> mujoco_sb3=<sb3> mujoco_ratio=<ours/sb3> pixel_return=<ours>
           pixel_sb3=<sb3> pixel_ratio=<ours/sb3> verify_cost_mujoco=<validator CPU / work CPU>
           verify_cost_pixel=<...>

Goals (issue 40): each return ratio >= 1.0 at equal steps, each verification cost <= 0.10.
A ratio over an SB3 return that is not positive says nothing; the line then shows `nan`.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ppo_vs_sb3 import evaluate_fn  # noqa: E402 - the one evaluation both benches' learners get


@dataclass(frozen=True)
class Workload:
    key: str
    """mujoco | pixel: the RESULT line's prefix."""
    env_id: str
    steps: int
    """Environment steps each learner trains on."""
    sb3: dict
    """rl-zoo's PPO settings (learning rate and clip range as constants or ("lin", x) schedules)."""


@dataclass
class Curve:
    steps: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)

    @property
    def final(self) -> float:
        return self.returns[-1] if self.returns else float("nan")


SB3_HALFCHEETAH = dict(normalize=True, n_envs=1, batch_size=64, n_steps=512, gamma=0.98, learning_rate=2.0633e-05,
                       ent_coef=0.000401762, clip_range=0.1, n_epochs=20, gae_lambda=0.92, max_grad_norm=0.8,
                       vf_coef=0.58096, log_std_init=-2.0, ortho_init=False, activation="relu", net=(256, 256))
"""rl-zoo hyperparams/ppo.yml, HalfCheetah-v3 (tuned; used for v5, whose dynamics are v3's)."""

SB3_HOPPER = dict(normalize=True, n_envs=1, batch_size=32, n_steps=512, gamma=0.999, learning_rate=9.80828e-05,
                  ent_coef=0.00229519, clip_range=0.2, n_epochs=5, gae_lambda=0.99, max_grad_norm=0.7,
                  vf_coef=0.835671, log_std_init=-2.0, ortho_init=False, activation="relu", net=(256, 256))
"""rl-zoo hyperparams/ppo.yml, Hopper-v3 (tuned; used for v5)."""

SB3_MUJOCO = {"HalfCheetah-v5": SB3_HALFCHEETAH, "Hopper-v5": SB3_HOPPER}
"""--mujoco-env's choices, each with its SB3 settings."""

SB3_ATARI = dict(normalize=False, n_envs=8, n_steps=128, n_epochs=4, batch_size=256, learning_rate=("lin", 2.5e-4),
                 clip_range=("lin", 0.1), vf_coef=0.5, ent_coef=0.01, gamma=0.99, gae_lambda=0.95, max_grad_norm=0.5)
"""rl-zoo hyperparams/ppo.yml, `atari` (ppo.yml has no MinAtar entry); the network is our preset's
MinAtar CNN, so the two learners differ in the algorithm's implementation, not in the network."""


# -- ours, through the network --------------------------------------------------------------------

def run_ours(workload: Workload, seed: int, eval_episodes: int, out: Path) -> tuple[Curve, float, dict]:
    """(curve, verification cost, figures) of the workload's preset run as one task through the
    local network (the `decentrl demo --env` network and task, with the rounds the budget buys)."""
    import torch

    from workers.demo import run as demo_run
    from workers.roles.sampler import round_policy
    from workers.roles.trainer import verify_checkpoint

    spec, task, timeout_s = demo_run.preset_demo(workload.env_id)
    spec = dataclasses.replace(spec, seed=seed)
    per_round = task["num_samplers"] * spec.steps_per_shard
    rounds = max(1, workload.steps // per_round)
    task = {**task, "num_rounds": rounds}
    demo = demo_run.Demo(out / f"{workload.key}-network", keep=False, spec=spec, task=task, live_eval=False,
                         timeout_s=timeout_s * rounds / max(1, demo_run.preset_demo(workload.env_id)[1]["num_rounds"]))
    make_env = spec.env_config().make
    curve, figures, cpu = Curve(), {}, {}
    started = time.time()
    try:
        demo.start_network()
        demo.start_nodes()
        demo.submit()
        demo.follow(started)
        figures["wall_s"] = time.time() - started
        events = {}
        cpu = handler_cpu(demo.nodes, events)
        figures["cpu_by_event"] = events
        torch.set_num_threads(1)
        for e in demo.dep.registry.events.RoundFinalized().get_logs(from_block=demo.started_block):
            a = e["args"]
            if a["taskId"] != demo.task_id or not a["checkpointCid"] or a["checkpointCid"] in figures.get("seen", ()):
                continue
            figures.setdefault("seen", set()).add(a["checkpointCid"])
            bundle = verify_checkpoint(demo.store.get(a["checkpointCid"]), bytes(a["checkpointRoot"]))
            policy = round_policy(spec, bundle.policy_bytes)
            curve.steps.append((int(a["round"]) + 1) * per_round)
            curve.returns.append(evaluate_fn(_acting(policy), eval_episodes, make_env=make_env))
        figures.update(rounds=rounds, accepted_checkpoints=len(curve.steps), cpu=cpu)
    finally:
        demo.stop()
    return curve, verify_cost(cpu), figures


def verify_cost(cpu: dict[tuple[str, str], float]) -> float:
    """One validator's handler CPU (the mean of the validators') over the handler CPU of the work
    it checked (every sampler's and the trainer's); nan without either."""
    work = sum(s for (_, role), s in cpu.items() if role in ("sampler", "trainer"))
    validators = [s for (_, role), s in cpu.items() if role == "validator"]
    return (sum(validators) / len(validators)) / work if work and validators else float("nan")


def _acting(policy):
    """act(observations) of our policy: its deterministic actions (argmax / Gaussian mean)."""
    import torch

    def act(obs):
        with torch.no_grad():
            actions = policy.deterministic_action(torch.as_tensor(obs))
        return [policy.env_action(a) for a in actions]
    return act


def handler_cpu(nodes, by_event: dict | None = None) -> dict[tuple[str, str], float]:
    """{(node, role): CPU seconds of its handler runs} from each node's metrics folder; with
    `by_event`, also adds each role's seconds per event into it ({(role, event): seconds})."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    out = {}
    for node in nodes:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(node.node_dir / "metrics"))
        total = 0.0
        for family in registry.collect():
            if family.name == "decentrl_handler_cpu_seconds":
                for sample in family.samples:
                    if sample.name.endswith("_total"):
                        total += sample.value
                        if by_event is not None:
                            key = (node.role, sample.labels["event"])
                            by_event[key] = by_event.get(key, 0.0) + sample.value
        out[(node.name, node.role)] = total
    return out


# -- Stable-Baselines3 ------------------------------------------------------------------------------

def run_sb3(workload: Workload, seed: int, eval_episodes: int, checkpoints: list[int]) -> Curve:
    """SB3's PPO on the workload's env, evaluated after the update at or past each of `checkpoints`."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    from workers.spec import preset_spec

    torch.set_num_threads(1)
    spec = preset_spec(workload.env_id)
    make_env = spec.env_config().make
    hp = workload.sb3
    venv = DummyVecEnv([make_env for _ in range(hp["n_envs"])])
    if hp["normalize"]:
        venv = VecNormalize(venv, gamma=hp["gamma"])

    def schedule(x):
        return (lambda left: left * x[1]) if isinstance(x, tuple) else x

    if spec.policy_kind == "mlp":
        net = list(hp.get("net", spec.hidden_sizes))
        relu = hp.get("activation", spec.activation) == "relu"
        policy_kwargs = dict(net_arch=dict(pi=net, vf=net), activation_fn=torch.nn.ReLU if relu else torch.nn.Tanh,
                             **{k: hp[k] for k in ("log_std_init", "ortho_init") if k in hp})
    else:
        policy_kwargs = dict(features_extractor_class=_sb3_extractor(spec), net_arch=[], normalize_images=False)
    model = PPO("MlpPolicy" if spec.policy_kind == "mlp" else "CnnPolicy", venv, seed=seed, device="cpu", verbose=0,
                n_steps=hp["n_steps"], batch_size=hp["batch_size"], n_epochs=hp["n_epochs"], gamma=hp["gamma"],
                gae_lambda=hp["gae_lambda"], learning_rate=schedule(hp["learning_rate"]),
                clip_range=schedule(hp["clip_range"]), ent_coef=hp["ent_coef"], vf_coef=hp["vf_coef"],
                max_grad_norm=hp["max_grad_norm"], policy_kwargs=policy_kwargs)
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes a folder in /tmp per model
    curve = Curve()
    pending = list(checkpoints)

    def act(obs):
        if hp["normalize"]:
            obs = venv.normalize_obs(obs)
        return model.predict(obs, deterministic=True)[0]

    class Evaluate(BaseCallback):
        def _on_rollout_start(self) -> None:  # right after an update
            while pending and self.num_timesteps >= pending[0]:
                pending.pop(0)
                curve.steps.append(self.num_timesteps)
                curve.returns.append(evaluate_fn(act, eval_episodes, make_env=make_env))

        def _on_step(self) -> bool:
            return True

    model.learn(total_timesteps=checkpoints[-1], callback=Evaluate())
    if pending:  # the last update
        curve.steps.append(model.num_timesteps)
        curve.returns.append(evaluate_fn(act, eval_episodes, make_env=make_env))
    return curve


def _sb3_extractor(spec):
    """Our preset's CNN trunk as an SB3 features extractor: the same layers and widths, fed as ours
    is (channels last in, uint8 planes scaled by 1/255 as our policy scales them)."""
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    from workers.rl.policy_cnn import cnn_trunk

    space, config = spec.space(), spec.policy_config()

    class Trunk(BaseFeaturesExtractor):
        def __init__(self, observation_space):
            super().__init__(observation_space, features_dim=config.hidden_sizes[-1])
            self.trunk = cnn_trunk(space, config, torch.Generator().manual_seed(spec.seed))
            # SB3 transposes what it takes for an image to channels first (VecTransposeImage)
            self.channels_last = tuple(observation_space.shape) == tuple(space.obs_shape)

        def forward(self, obs):
            return self.trunk((obs.permute(0, 3, 1, 2) if self.channels_last else obs) / 255.0)

    return Trunk


# -- the run ----------------------------------------------------------------------------------------

def ratio(ours: float, sb3: float) -> float:
    """ours / sb3, or nan where the ratio says nothing (SB3's return not positive)."""
    return ours / sb3 if sb3 > 0 and math.isfinite(ours) else float("nan")


def plot(out: Path, workload: Workload, ours: Curve, sb3: Curve) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    ax.plot(ours.steps, ours.returns, "o-", label="decentrl (through the network)")
    ax.plot(sb3.steps, sb3.returns, "s--", label="Stable-Baselines3 PPO (rl-zoo)")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("mean evaluation return")
    ax.set_title(f"{workload.env_id}: equal step budgets")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{workload.key}_curve.png"
    fig.savefig(path)
    plt.close(fig)
    (out / f"{workload.key}_curve.json").write_text(json.dumps(
        {"env_id": workload.env_id, "ours": dataclasses.asdict(ours), "sb3": dataclasses.asdict(sb3)}, indent=2) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mujoco-env", default="HalfCheetah-v5", choices=sorted(SB3_MUJOCO))
    parser.add_argument("--mujoco-steps", type=int, default=40_960)
    parser.add_argument("--pixel-env", default="MinAtar/Breakout-v1")
    parser.add_argument("--pixel-steps", type=int, default=98_304)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-episodes", type=int, default=10)
    parser.add_argument("--only", choices=("mujoco", "pixel"), default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "bench-workloads")
    args = parser.parse_args()

    workloads = [Workload("mujoco", args.mujoco_env, args.mujoco_steps, SB3_MUJOCO[args.mujoco_env]),
                 Workload("pixel", args.pixel_env, args.pixel_steps, SB3_ATARI)]
    results = {}
    for w in workloads:
        if args.only not in (None, w.key):
            continue
        t = time.time()
        ours, cost, figures = run_ours(w, args.seed, args.eval_episodes, args.out)
        print(f"{w.env_id}: ours {ours.final:.1f} after {ours.steps[-1] if ours.steps else 0} steps "
              f"({figures.get('accepted_checkpoints')} of {figures.get('rounds')} rounds accepted, "
              f"{figures.get('wall_s', float('nan')):.0f} s through the network); verify cost {cost:.3f}", flush=True)
        for (name, role), s in sorted(figures.get("cpu", {}).items()):
            print(f"    {name:<12} {role:<9} handler CPU {s:8.1f} s")
        for (role, event), s in sorted(figures.get("cpu_by_event", {}).items(), key=lambda kv: -kv[1])[:12]:
            print(f"      {role:<9} {event:<22} {s:8.1f} s (all nodes of the role)")
        checkpoints = ours.steps or [w.steps]
        sb3 = run_sb3(w, args.seed, args.eval_episodes, checkpoints)
        print(f"{w.env_id}: SB3 {sb3.final:.1f} after {sb3.steps[-1]} steps; both in {time.time() - t:.0f} s",
              flush=True)
        print(f"    curve {plot(args.out, w, ours, sb3)}")
        results[w.key] = (ours.final, sb3.final, cost)

    print(result_line(results))


def result_line(results: dict[str, tuple[float, float, float]]) -> str:
    """The RESULT line of {workload key: (ours, SB3, verification cost)}."""
    def fmt(x):
        return "nan" if not math.isfinite(x) else f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}"

    parts = []
    for key in ("mujoco", "pixel"):
        if key in results:
            ours, sb3, _ = results[key]
            parts += [f"{key}_return={fmt(ours)}", f"{key}_sb3={fmt(sb3)}", f"{key}_ratio={fmt(ratio(ours, sb3))}"]
    parts += [f"verify_cost_{key}={fmt(results[key][2])}" for key in ("mujoco", "pixel") if key in results]
    return "RESULT " + " ".join(parts)


if __name__ == "__main__":
    main()
