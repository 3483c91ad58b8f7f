"""anvil's evicted states go to a folder of the run's own, removed when the run stops its anvil:
left in anvil's default ~/.foundry/anvil/tmp by killed anvils, they had filled a disk."""

from pathlib import Path

import pytest
from brownie.network import rpc

from scripts import brownie_patches
from workers.localnet.chain import Anvil


def _cache_path_of(pid: int) -> Path:
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return Path(args[args.index("--cache-path") + 1])


def test_a_local_anvil_keeps_its_states_in_its_own_folder_and_stop_removes_it():
    node = Anvil()
    try:
        cache = _cache_path_of(node.pid)
        assert cache == node.cache_path and cache.is_dir()
        assert not cache.is_relative_to(Path.home() / ".foundry")
    finally:
        node.stop()
    assert not cache.exists()


def test_the_anvil_brownie_launched_for_this_session_has_a_folder_of_its_own():
    assert rpc.is_child()
    cache = _cache_path_of(rpc.process.pid)
    assert cache.is_dir() and str(cache) in brownie_patches._anvil_caches


def test_killing_brownies_anvil_removes_its_folder_even_when_the_kill_raises(tmp_path, monkeypatch):
    folder = tmp_path / "decentrl-anvil-cache-x"
    folder.mkdir()
    monkeypatch.setattr(brownie_patches, "_anvil_caches", [str(folder)])  # not this session's

    def failing_kill(self, exc=True):
        raise SystemError("RPC is not active")

    with pytest.raises(SystemError):
        brownie_patches._killing_and_removing_caches(failing_kill)(None)
    assert not folder.exists() and brownie_patches._anvil_caches == []
