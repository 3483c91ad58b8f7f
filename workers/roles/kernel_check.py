"""Does this machine compute what the network's other nodes compute? A few tiny honest rounds,
hashed and compared with the reference digests.

Validators re-run samplers' steps exactly and trainers' CPU steps bit for bit, so a node whose
float kernels give other bits (another CPU family, a library build other than requirements.txt
pins, kernels not pinned by workers.cpu_kernels) would be rejected and slashed for honest work.
`decentrl node start` runs this first and refuses to start on a mismatch, which costs the operator
nothing. Each case covers what it names: the MuJoCo simulator and an MLP with observation and
reward normalisation; numpy's sin and cos (classic control) with a Gaussian head; a CNN on uint8
images with a categorical head. Every case trains (forward, backward, Adam, the trace states), so
it exercises MKL's matrix products, ATen's convolution and vector kernels and MuJoCo's floats.
Atari and MinAtar's games are integer emulation: their simulators do not depend on the CPU."""

from __future__ import annotations

import dataclasses
import hashlib
from importlib import metadata

import torch

from workers.rl.config import PPOConfig
from workers.roles.determinism import single_thread
from workers.roles.local_round import run_round
from workers.spec import TaskSpec

_PPO = PPOConfig(batch_size=16, update_epochs=1)
CASES = {
    "mujoco-mlp": TaskSpec(env_id="HalfCheetah-v5", seed=5, hidden_sizes=(32, 32), steps_per_shard=32,
                           obs_norm=True, ppo=dataclasses.replace(_PPO, norm_reward=True), steps_per_snapshot=16),
    "classic-gaussian": TaskSpec(env_id="Pendulum-v1", seed=5, hidden_sizes=(32, 32), steps_per_shard=32, ppo=_PPO),
    "pixels-cnn": TaskSpec(env_id="MinAtar/Breakout-v1", seed=5, policy_kind="minatar_cnn", hidden_sizes=(32,),
                           steps_per_shard=32, ppo=_PPO),
}
"""Round 0 of each, one shard of 32 steps, 2 gradient steps."""

REFERENCE = {
    "mujoco-mlp": "8439de2d76197d69493fda686f0d6722",
    "classic-gaussian": "2c50570dcbf9686723874cfaab5fd0e8",
    "pixels-cnn": "dfec7972081c8bce22977754ba2dfa71",
}
"""Each case's digest on the reference machine (x86-64 with AVX2, the kernels as pinned, the
versions of requirements.txt). `python -m workers.roles.kernel_check` prints this machine's."""

REFERENCE_VERSIONS = {"torch": "2.13.0", "numpy": "2.4.6", "gymnasium": "1.4.0", "mujoco": "4.0.1", "minatar": "1.0.15"}
"""The packages whose code the cases run, as on the reference machine (a local build tag such as
torch's +cpu or +cu130 is not part of it): named in a mismatch's message when they differ here."""


def versions() -> dict[str, str]:
    """This machine's versions of REFERENCE_VERSIONS' packages (None: not installed)."""
    def version(name):
        try:
            return metadata.version(name).split("+")[0]
        except metadata.PackageNotFoundError:
            return None

    return {name: version(name) for name in REFERENCE_VERSIONS}


class KernelMismatch(RuntimeError):
    """This machine's float kernels give other bits than the network's reference."""


def case_digest(spec: TaskSpec) -> str:
    """sha256 of round 0's shard, checkpoint and stored trace, computed as a node computes it."""
    with single_thread():
        done = run_round(spec, task_id=1, round_=0, prev=None, slots=(0,))
    h = hashlib.sha256(done.shards[0].blob)
    h.update(done.checkpoint.bundle)
    for blob in done.checkpoint.stored:
        h.update(blob)
    return h.hexdigest()[:32]


def fingerprint() -> dict[str, str]:
    """Each case's digest on this machine."""
    return {name: case_digest(spec) for name, spec in CASES.items()}


def check() -> None:
    """KernelMismatch, saying which cases differ and what to do, unless this machine computes the
    reference bits."""
    capability = torch.backends.cpu.get_cpu_capability()
    differ = sorted(name for name, got in fingerprint().items() if got != REFERENCE[name])
    if not differ:
        return
    other = [f"{name} {got} (reference {REFERENCE_VERSIONS[name]})" for name, got in versions().items()
             if got != REFERENCE_VERSIONS[name]]
    raise KernelMismatch(
        f"this machine's float kernels give other bits than the network's reference ({', '.join(differ)}; "
        f"torch runs its {capability} kernels, the reference AVX2"
        + (f"; installed here: {', '.join(other)}" if other else "") + "): validators would reject this "
        "node's samples and training steps. Run on an x86-64 CPU with AVX2, with the package versions "
        "requirements.txt pins, and let workers set MKL_CBWR and ATEN_CPU_CAPABILITY "
        "(workers.cpu_kernels: nothing may compute with torch before workers is imported).")


if __name__ == "__main__":
    for name, digest in fingerprint().items():
        print(f'    "{name}": "{digest}",')
    print(versions())
