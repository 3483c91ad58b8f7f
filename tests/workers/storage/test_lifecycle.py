"""Retention: unpinned results are collected after 7 days (configurable); pins protect."""
import pytest
from storage_support import DAY

from workers.storage.store import ContentNotFound, EmbeddedStore


def test_gc_keeps_results_younger_than_seven_days(store, clock):
    cid = store.put(b"rollout round 1")
    clock.advance(7 * DAY - 1)
    assert store.gc() == []
    assert store.get(cid) == b"rollout round 1"


def test_gc_drops_unpinned_results_after_seven_days(store, clock):
    old = store.put(b"rollout round 1")
    clock.advance(DAY)
    young = store.put(b"rollout round 2")
    clock.advance(6 * DAY)
    assert store.gc() == [old]
    assert not store.has(old) and store.has(young)
    assert [e.cid for e in store.list()] == [young]


def test_pinned_results_survive_gc(store, clock):
    final = store.put(b"final policy", pin=True)
    later = store.put(b"checkpoint")
    store.pin(later)
    clock.advance(365 * DAY)
    assert store.gc() == []
    assert store.get(final) == b"final policy" and store.has(later)


def test_unpin_lets_an_old_result_expire(store, clock):
    cid = store.put(b"superseded policy", pin=True)
    clock.advance(8 * DAY)
    store.unpin(cid)
    assert store.gc() == [cid]


def test_putting_again_with_pin_pins(store, clock):
    store.put(b"x")
    store.put(b"x", pin=True)
    clock.advance(30 * DAY)
    assert store.gc() == [] and store.list()[0].pinned


def test_putting_the_same_bytes_again_restarts_the_retention(store, clock):
    cid = store.put(b"identical rollout")
    clock.advance(6 * DAY)
    store.put(b"identical rollout")
    clock.advance(2 * DAY)
    assert store.gc() == []
    clock.advance(5 * DAY)
    assert store.gc() == [cid]


def test_gc_skips_what_another_process_refreshed_meanwhile(store, clock):
    cid = store.put(b"rollout")
    clock.advance(8 * DAY)
    other = EmbeddedStore(store.root, clock=clock)  # e.g. another Celery worker process
    expired = store._ledger.expired(clock.now - store.retention)
    other.put(b"rollout")  # lands between gc's query and its deletion
    assert expired == [cid]
    assert not store._ledger.remove_if_expired(cid, clock.now - store.retention)
    assert store.gc() == [] and store.get(cid) == b"rollout"


def test_retention_is_configurable(tmp_path, clock):
    store = EmbeddedStore(tmp_path, retention=3600, clock=clock)
    cid = store.put(b"short-lived")
    clock.advance(3600)
    assert store.gc() == [cid]


@pytest.mark.parametrize("retention", [0, -1])
def test_retention_must_be_positive(tmp_path, retention):
    with pytest.raises(ValueError, match="retention must be positive"):
        EmbeddedStore(tmp_path, retention=retention)


@pytest.mark.parametrize("action", ["pin", "unpin"])
def test_pin_of_an_unknown_cid_is_an_error(store, action):
    cid = "bafkreifjjcie6lypi6ny7amxnfftagclbuxndqonfipmb64f2km2devei4"
    with pytest.raises(ContentNotFound, match=f"cannot {action} {cid}: it was not stored"):
        getattr(store, action)(cid)
