"""gymnasium environments by id, with keyword arguments and wrappers, checked for what our policies
can drive.

Families (`SUPPORTED` maps each tested id to one): classic control, MuJoCo (`Hopper-v5`, ...),
Atari through ale-py (`ALE/Breakout-v5`, ... with the `atari_preprocessing` wrapper) and MinAtar
(`MinAtar/Breakout-v1`, ..., bool planes recorded as uint8 0/255). A task spec names an `EnvConfig`;
`make_env`, `env_space_spec` and `time_limit` take one or a plain id. Snapshots of a running env's
state: `workers.rl.snapshot`.
"""

from workers.rl.envs.config import EnvConfig, MinAtarPlanes, as_config, env_space_spec, make_env, time_limit
from workers.rl.envs.families import (
                                      ATARI,
                                      CLASSIC,
                                      CLASSIC_CONTROL,
                                      MINATAR,
                                      MUJOCO,
                                      OTHER,
                                      SUPPORTED,
                                      accepted_kwargs,
                                      family,
)
from workers.rl.envs.spaces import BOX, DISCRETE, FLOAT32, OBS_DTYPES, UINT8, EnvError, SpaceSpec, space_spec
from workers.rl.envs.wrappers import ARGS as WRAPPER_ARGS
from workers.rl.envs.wrappers import WrapperConfig, wrapper_config

__all__ = [
    "ATARI", "BOX", "CLASSIC", "CLASSIC_CONTROL", "DISCRETE", "FLOAT32", "MINATAR", "MUJOCO", "OBS_DTYPES", "OTHER",
    "SUPPORTED", "UINT8", "WRAPPER_ARGS", "EnvConfig", "EnvError", "MinAtarPlanes", "SpaceSpec", "WrapperConfig",
    "accepted_kwargs", "as_config", "env_space_spec", "family", "make_env", "space_spec", "time_limit",
    "wrapper_config",
]
