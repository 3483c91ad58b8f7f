"""The policy's and the trainer's settings, without torch.

`PolicyConfig` (the actor-critic's architecture) and `PPOConfig` (the trainer's hyperparameters)
are what a task spec carries, so everything that only reads or checks specs (the CLI, a node's
claim lane, workers.spec) imports them from here and never loads torch (~2 s and ~200 MB a
process). workers.rl.policy and workers.rl.ppo use them to build and train.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

ACTIVATIONS = ("tanh", "relu")
"""Hidden-layer nonlinearities a policy may use (workers.rl.policy maps them to torch modules)."""

DEVICES = ("auto", "cpu", "cuda")
"""Where a trainer may run: "auto" is cuda when torch sees one, else cpu."""

MLP = "mlp"
NATURE_CNN = "nature_cnn"
MINATAR_CNN = "minatar_cnn"
KINDS = (MLP, NATURE_CNN, MINATAR_CNN)
"""Policy networks: an MLP on flat observations, or a convolutional trunk on images."""
CONV_LAYERS = {
    NATURE_CNN: ((32, 8, 4), (64, 4, 2), (64, 3, 1)),
    MINATAR_CNN: ((16, 3, 1),),
}
"""(out channels, kernel size, stride) of each convolution of a CNN kind (no padding, ReLU after
each): Mnih et al. 2015's Nature DQN, and the MinAtar paper's (Young & Tian 2019) small net."""
_DEFAULT_HIDDEN = {MLP: (64, 64), NATURE_CNN: (512,), MINATAR_CNN: (128,)}
_DEFAULT_ACTIVATION = {MLP: "tanh", NATURE_CNN: "relu", MINATAR_CNN: "relu"}


@dataclass(frozen=True)
class PolicyConfig:
    """Architecture of an actor-critic policy; part of every checkpoint's metadata."""

    hidden_sizes: tuple[int, ...] | None = None
    """Widths of the fully connected hidden layers. MLP: the same for actor and critic (separate
    networks); default (64, 64). CNN kinds: the layers after the convolutions, shared by actor and
    critic; default the paper's, (512,) for nature_cnn and (128,) for minatar_cnn."""
    activation: str | None = None
    """Nonlinearity of those layers: one of "tanh", "relu"; default "tanh" for the MLP, "relu" for
    CNN kinds (whose convolutions are always followed by ReLU)."""
    init_log_std: float = 0.0
    """Initial log standard deviation of Gaussian actions (state-independent, learned). Unused
    for discrete actions."""
    seed: int = 0
    """Seed of the parameter initialisation (a local generator; same seed, same parameters)."""
    kind: str = MLP
    """The network: "mlp" (flat observations), "nature_cnn" or "minatar_cnn" (images; actor and
    critic share the convolutional trunk, as SB3's CnnPolicy and cleanrl's ppo_atari)."""
    obs_norm: bool = False
    """Normalise observations by running statistics that the policy carries (and its checkpoint,
    so its digest covers them): (obs - mean) / sqrt(var + 1e-8), clipped to +-10, as SB3's
    VecNormalize. The trainer updates them each round from the round's observations."""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.hidden_sizes is None:
            object.__setattr__(self, "hidden_sizes", _DEFAULT_HIDDEN[self.kind])
        if self.activation is None:
            object.__setattr__(self, "activation", _DEFAULT_ACTIVATION[self.kind])
        if not isinstance(self.obs_norm, bool):
            raise ValueError(f"obs_norm must be true or false, got {self.obs_norm!r}")
        object.__setattr__(self, "hidden_sizes", tuple(int(h) for h in self.hidden_sizes))
        if not self.hidden_sizes or any(h < 1 for h in self.hidden_sizes):
            raise ValueError(f"hidden_sizes must be one or more positive widths, got {self.hidden_sizes}")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {self.activation!r}")
        if not math.isfinite(self.init_log_std):
            raise ValueError("init_log_std must be finite")
        if not 0 <= self.seed < 2**63:
            raise ValueError(f"seed must be in [0, 2**63), got {self.seed}")

    @property
    def cnn(self) -> bool:
        return self.kind != MLP

    def architecture(self) -> PolicyConfig:
        """This config without what only the initialisation uses (seed, init_log_std): what every
        policy of one task shares, however its round-0 policy was made."""
        return replace(self, seed=0, init_log_std=0.0)

    def to_dict(self) -> dict:
        """JSON form; `kind` and `obs_norm` only when not the defaults, so an MLP's dict (and the
        digest of every checkpoint holding it) is the one from before they existed."""
        d = asdict(self)
        d["hidden_sizes"] = list(self.hidden_sizes)
        if self.kind == MLP:
            del d["kind"]
        if not self.obs_norm:
            del d["obs_norm"]
        return d


@dataclass(frozen=True)
class PPOConfig:
    """PPO hyperparameters; defaults are the design values for training nodes."""

    learning_rate: float = 1e-4
    """Adam learning rate at the first env step."""
    final_learning_rate: float = 1e-5
    """Learning rate reached after `anneal_steps` env steps (linear decay, constant after)."""
    anneal_steps: int = 100_000
    """Env steps over which the learning rate decays from `learning_rate` to `final_learning_rate`."""
    batch_size: int = 256
    """Samples (env steps) per gradient step (minibatch size)."""
    update_epochs: int = 4
    """Passes over the round's samples."""
    gamma: float = 0.99
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE lambda (1.0: Monte-Carlo advantages, 0.0: one-step TD)."""
    clip_coef: float = 0.2
    """PPO ratio clipping range (1 +- clip_coef); also clips the value update if `clip_vloss`."""
    clip_vloss: bool = True
    """Clip the value function update around the old values (as cleanrl)."""
    ent_coef: float = 0.0
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Global gradient-norm clipping threshold."""
    norm_adv: bool = True
    """Normalize advantages per minibatch."""
    target_kl: float | None = None
    """Stop the round's epochs early when the approximate KL exceeds this (None: never)."""
    checkpoint_every: int = 10_000
    """Env steps between checkpoints: `stats["checkpoint_due"]` says when one is due."""
    seed: int = 0
    """Seed of the minibatch shuffling (combined with the update count)."""
    device: str = "auto"
    """"auto" (cuda when available, else cpu), "cpu" or "cuda"."""
    norm_reward: bool = False
    """Scale rewards by the running standard deviation of discounted returns (clipped to +-10),
    as SB3's VecNormalize; the statistics are in the TrainState (workers.rl.normalization)."""

    def __post_init__(self):
        problems = []
        if not (self.learning_rate > 0 and self.final_learning_rate >= 0):
            problems.append("learning_rate must be > 0 and final_learning_rate >= 0")
        for name in ("anneal_steps", "batch_size", "update_epochs", "checkpoint_every"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                problems.append(f"{name} must be a positive integer, got {v!r}")
        if not 0 <= self.gamma <= 1 or not 0 <= self.gae_lambda <= 1:
            problems.append("gamma and gae_lambda must be in [0, 1]")
        for name in ("clip_coef", "max_grad_norm"):
            if not getattr(self, name) > 0:
                problems.append(f"{name} must be > 0")
        for name in ("ent_coef", "vf_coef"):
            if not getattr(self, name) >= 0:
                problems.append(f"{name} must be >= 0")
        if self.target_kl is not None and not self.target_kl > 0:
            problems.append("target_kl must be > 0 or None")
        if not isinstance(self.norm_reward, bool):
            problems.append(f"norm_reward must be true or false, got {self.norm_reward!r}")
        if self.device not in DEVICES:
            problems.append(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        if problems:
            raise ValueError("invalid PPOConfig: " + "; ".join(problems))

    def to_dict(self) -> dict:
        """JSON form; `norm_reward` only when set (the dict of every config before it is unchanged)."""
        d = asdict(self)
        if not self.norm_reward:
            del d["norm_reward"]
        return d
