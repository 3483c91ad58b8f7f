"""A node's measured rates are keyed by the spec's whole environment configuration
(workers.node.market.throughput.env_of): a rate measured for one set of wrappers, kwargs or
snapshot interval never prices another, so a requester cannot have a node claim heavy work at a
light configuration's speed (and miss its deadlines)."""
import dataclasses
from types import SimpleNamespace

from workers.node.market.book import MarketBook
from workers.node.market.throughput import arch_of, env_of, rates
from workers.spec import DEMO_CARTPOLE, preset_spec

ATARI = preset_spec("ALE/Breakout-v5")


def stacked(spec, size):
    return dataclasses.replace(spec, wrappers=tuple(
        dataclasses.replace(w, args=(("size", size),)) if w.name == "frame_stack" else w for w in spec.wrappers))


def test_a_bare_env_is_keyed_by_its_id_and_a_configured_one_by_its_configuration():
    assert env_of(DEMO_CARTPOLE) == "CartPole-v1"  # the key of every rate recorded before configurations
    key = env_of(ATARI)
    assert key.startswith("ALE/Breakout-v5 atari_preprocessing+frame_stack+clip_reward #") and key == env_of(ATARI)
    cheetah = preset_spec("HalfCheetah-v5")
    assert env_of(cheetah).startswith("HalfCheetah-v5 #")  # snapshots, no wrappers
    others = {env_of(stacked(ATARI, 8)), env_of(dataclasses.replace(cheetah, steps_per_snapshot=64)),
              env_of(dataclasses.replace(cheetah, env_kwargs=(("forward_reward_weight", 2.0),)))}
    assert len(others) == 3 and not others & {key, env_of(cheetah)}


def test_a_rate_of_one_configuration_does_not_price_another(tmp_path):
    book = MarketBook(tmp_path)
    for kind in ("rollout", "replay", "update"):
        book.calibrated(kind, env_of(ATARI), arch_of(ATARI), 1000.0)
    ctx = SimpleNamespace(node_dir=tmp_path, _cache={})
    assert rates(ctx, ATARI, ("rollout",), calibrate=False) == {"rollout": 1000.0}
    assert rates(ctx, stacked(ATARI, 8), ("rollout",), calibrate=False) is None  # measured first, not guessed
