"""Environment families: which gymnasium ids we support, how they register, which kwargs they take.

A family is recognised by the entry point gymnasium registered for the id. Atari (ale-py) and
MinAtar ids are registered on first use, so importing this package stays cheap.
"""

from __future__ import annotations

import difflib
import inspect
import logging
import math
import sys

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from workers.rl.envs.spaces import EnvError

CLASSIC = "classic_control"
MUJOCO = "mujoco"
ATARI = "atari"
MINATAR = "minatar"
OTHER = "other"
"""Any other registered id: usable when its spaces are supported, but without snapshots."""

CLASSIC_CONTROL = (
    "CartPole-v1",
    "Acrobot-v1",
    "MountainCar-v0",
    "Pendulum-v1",
    "MountainCarContinuous-v0",
)
"""Classic-control ids known to work end to end (rollout, replay, training)."""

SUPPORTED = {
    **{env_id: CLASSIC for env_id in CLASSIC_CONTROL},
    **{f"{name}-v5": MUJOCO for name in ("Hopper", "HalfCheetah", "Walker2d", "Ant")},
    **{f"ALE/{name}-v5": ATARI for name in ("Breakout", "Pong", "SpaceInvaders", "Seaquest")},
    **{f"MinAtar/{name}-v1": MINATAR for name in ("Breakout", "Asterix", "Freeway", "Seaquest", "SpaceInvaders")},
}
"""id -> family of the ids known to work here: each builds, snapshots and resumes
(tests/workers/rl/test_snapshot.py); at least one of each family is also checked across processes
and thread counts (test_env_determinism.py)."""

NEVER_TERMINATE = frozenset({"Pendulum-v1", "HalfCheetah-v5"})
"""Supported ids with no terminal state: each episode runs to its time limit."""


def never_terminates(env_id: str, kwargs: dict) -> bool:
    """Whether an env of `env_id` with `kwargs` ends an episode only at its time limit: the ids of
    NEVER_TERMINATE, and the MuJoCo bodies told not to end on falling (terminate_when_unhealthy
    False). A rollout may rely on it only to start fewer speculative episodes: an episode that does
    end earlier is counted by its real length."""
    return env_id in NEVER_TERMINATE or (
        SUPPORTED.get(env_id) == MUJOCO and kwargs.get("terminate_when_unhealthy") is False)


_ENTRY_POINTS = (
    ("gymnasium.envs.classic_control.", CLASSIC),
    ("gymnasium.envs.mujoco.", MUJOCO),
    ("ale_py.env:", ATARI),
    ("minatar.gym:", MINATAR),
)

_NOT_KWARGS = {
    "render_mode", "xml_file", "default_camera_config",  # rendering, or a local file path
    "game", "obs_type", "sound_obs", "continuous", "continuous_action_threshold",  # Atari: the observation/action
    "frameskip", "repeat_action_probability", "max_num_frames_per_episode",  # Atari: wrappers' arguments
    "display_time", "use_minimal_action_set",  # MinAtar: rendering; the id's version fixes the action set
}
"""Constructor parameters a spec may not set: they change what the id means or only rendering."""


_WRAPPER_ARGS = {
    "frameskip": 'frame skip is the "atari_preprocessing" wrapper\'s frame_skip',
    "repeat_action_probability": 'sticky actions are the "atari_preprocessing" wrapper\'s repeat_action_probability',
    "max_num_frames_per_episode": 'episode length is the "time_limit" wrapper\'s max_episode_steps (agent steps; '
                                  'Atari\'s default is 27,000)',
}
"""Atari constructor parameters that are wrapper arguments here, and where to set them instead."""

_done: set[str] = set()
"""The families registered (Atari, MinAtar) or prepared (MuJoCo) in this process."""
_log = logging.getLogger(__name__)


def register(env_id: str) -> None:
    """Registers the Atari or MinAtar ids if `env_id` is one of theirs (once per process)."""
    if env_id.startswith("ALE/") and ATARI not in _done:
        import ale_py

        gym.register_envs(ale_py)
        _done.add(ATARI)
    if env_id.startswith("MinAtar/") and MINATAR not in _done:
        _register_minatar()
        _done.add(MINATAR)


def prepare(env_id: str) -> None:
    """Once per process, before the first MuJoCo env: MuJoCo's own warning handler appends to
    MUJOCO_LOG.TXT in the working directory (gymnasium's models warn about `settotalmass` on every
    load); send its warnings to our log instead."""
    if family(env_id) == MUJOCO and MUJOCO not in _done:
        import mujoco

        mujoco.set_mju_user_warning(lambda text: _log.info("MuJoCo: %s", text))
        _done.add(MUJOCO)


_MINATAR_RENDERING = ("matplotlib", "seaborn")
"""What minatar imports only to draw its games (inside a try: it runs without them). We never render
(render_mode is a refused kwarg), and importing them (scipy with seaborn) cost every node process
about a second of CPU on its first MinAtar task."""


def _register_minatar() -> None:
    root = logging.getLogger()
    quiet = logging.NullHandler()
    # a None entry in sys.modules makes `import name` raise ImportError: minatar then goes without
    # its rendering libraries; one already imported stays as it is
    blocked = [name for name in _MINATAR_RENDERING if name not in sys.modules]
    sys.modules.update(dict.fromkeys(blocked))
    root.addHandler(quiet)  # minatar logs a warning at import when seaborn is missing; without a
    try:  # handler on the root logger, logging.warning would also configure it for the whole process
        import minatar.gym
    finally:
        root.removeHandler(quiet)
        for name in blocked:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]
    minatar.gym.register_envs()


def check_id(env_id) -> str:
    """`env_id` if it is a registered id (registering Atari/MinAtar first), else EnvError with close matches."""
    if not isinstance(env_id, str) or not env_id:
        raise EnvError(f"env_id must be a non-empty gymnasium id such as 'CartPole-v1', got {env_id!r}")
    register(env_id)
    if env_id not in gym.registry:
        register("ALE/")
        register("MinAtar/")
        close = difflib.get_close_matches(env_id, [*SUPPORTED, *gym.registry], n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(repr(c) for c in dict.fromkeys(close))}?" if close else ""
        raise EnvError(f"unknown environment id {env_id!r}.{hint} Supported ids: {', '.join(SUPPORTED)}")
    return env_id


def family(env_id: str) -> str:
    """The family of a registered id (CLASSIC, MUJOCO, ATARI, MINATAR, or OTHER)."""
    entry = gym.spec(check_id(env_id)).entry_point
    if not isinstance(entry, str):
        return OTHER
    return next((fam for prefix, fam in _ENTRY_POINTS if entry.startswith(prefix)), OTHER)


def accepted_kwargs(env_id: str) -> tuple[str, ...]:
    """Constructor keyword arguments a spec may set for `env_id` (sorted), read from the signature
    of its entry point (and, for MinAtar, of the `minatar.Environment` it forwards **kwargs to)."""
    creator = load_env_creator(gym.spec(check_id(env_id)).entry_point)
    params = dict(inspect.signature(creator).parameters)
    if family(env_id) == MINATAR:
        from minatar import Environment

        params |= inspect.signature(Environment).parameters
    named = (p.name for p in params.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    return tuple(sorted(n for n in named if n not in _NOT_KWARGS and n != "env_name"))


def check_kwargs(env_id: str, kwargs: dict) -> None:
    """EnvError unless every name is one `env_id` accepts and every value a JSON scalar."""
    accepted = accepted_kwargs(env_id)
    if not all(isinstance(name, str) for name in kwargs):
        raise EnvError(f"{env_id}: keyword argument names are strings, got {list(kwargs)!r}")
    for name in sorted(kwargs):
        if name in _WRAPPER_ARGS and family(env_id) == ATARI:
            raise EnvError(f"{env_id}: {_WRAPPER_ARGS[name]}, not an env keyword argument")
        if name not in accepted:
            raise EnvError(f"{env_id} does not accept the keyword argument {name!r}; it accepts: "
                           f"{', '.join(accepted) or 'none'}")
        value = kwargs[name]
        if value is not None and not isinstance(value, (bool, int, float, str)):
            raise EnvError(f"{env_id} keyword argument {name!r}: values are JSON scalars (number, string, "
                           f"true/false, null), got {type(value).__name__} {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise EnvError(f"{env_id} keyword argument {name!r} must be finite, got {value!r}")
