"""EmbeddedStore: round trip, layout, atomic files, verification of what it reads back."""
import pytest
from vectors import MIB, pattern

from workers.cid import CIDMismatch, compute
from workers.storage.store import RETRYABLE, ContentNotFound, EmbeddedStore, IpfsStore, NotACid, open_store


@pytest.mark.parametrize("size", [0, 1, MIB + 1])
def test_put_get_round_trip(store, size):
    data = pattern("shake256", size)
    cid = store.put(data)
    assert cid == compute(data)
    assert store.get(cid) == data
    assert store.has(cid)


def test_object_is_one_file_named_by_its_cid(store):
    cid = store.put(b"rollout")
    assert (store.root / "blocks" / cid[-3:-1] / cid).read_bytes() == b"rollout"
    assert [p.name for p in (store.root / "blocks").rglob("*") if p.is_file()] == [cid]  # no temp files left


def test_put_is_idempotent_and_restarts_retention(store, clock):
    cid = store.put(b"same")
    clock.advance(60)
    assert store.put(b"same") == cid
    [entry] = store.list()
    assert (entry.cid, entry.size, entry.created_at) == (cid, 4, clock.now)


def test_tampered_bytes_on_disk_are_rejected(store):
    cid = store.put(b"checkpoint weights")
    (store.root / "blocks" / cid[-3:-1] / cid).write_bytes(b"checkpoint weightz")
    with pytest.raises(CIDMismatch, match=f"expected {cid}"):
        store.get(cid)


def test_missing_cid_says_where_it_looked(store):
    cid = compute(b"never stored")
    assert not store.has(cid)
    with pytest.raises(ContentNotFound, match=f"{cid} is not in the embedded store at {store.root}"):
        store.get(cid)


def test_get_rejects_a_malformed_cid(store):
    with pytest.raises(ValueError, match="CIDv0"):
        store.get("QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR")


@pytest.mark.parametrize("cid", ["not-a-cid", "", "b!!!", "../ledger.sqlite"])
def test_a_string_that_is_not_a_cid_names_no_content(store, cid):
    """Another node may reveal any string as its CID: a fetch of it is missing content (retried,
    then missing data), never another error."""
    with pytest.raises(NotACid) as caught:
        store.get(cid)
    assert isinstance(caught.value, ContentNotFound) and isinstance(caught.value, RETRYABLE)


def test_delete_removes_file_and_record(store):
    keep, drop = store.put(b"keep"), store.put(b"drop", pin=True)
    store.delete(drop)
    assert not store.has(drop) and store.has(keep)
    assert [e.cid for e in store.list()] == [keep]


def test_a_second_store_on_the_same_folder_sees_everything(store, clock):
    cid = store.put(b"shared", pin=True)
    other = EmbeddedStore(store.root, clock=clock)
    assert other.get(cid) == b"shared" and other.list()[0].pinned


def test_open_store_picks_the_implementation(tmp_path):
    assert isinstance(open_store(None, tmp_path / "a"), EmbeddedStore)
    ipfs = open_store("/ip4/127.0.0.1/tcp/5199/http", tmp_path / "b")
    assert isinstance(ipfs, IpfsStore) and ipfs.api == "/ip4/127.0.0.1/tcp/5199/http"
    ipfs.close()


def test_gc_forever_drops_expired_results_until_stopped(store, clock):
    import threading

    from workers.storage.store import gc_forever

    old, kept = store.put(b"old rollout"), store.put(b"final policy", pin=True)
    clock.advance(store.retention + 1)
    fresh = store.put(b"fresh rollout")
    stop = threading.Event()
    stop.set()  # one pass, then return
    gc_forever(store, interval=3600, stop=stop)
    assert {e.cid for e in store.list()} == {kept, fresh} and not store.has(old)


def test_a_failing_gc_pass_is_tried_again_at_the_next(store, clock, monkeypatch, caplog):
    import sqlite3
    import threading

    from workers.storage.store import gc_forever

    old = store.put(b"old rollout")
    clock.advance(store.retention + 1)
    real_gc, passes, stop = store.gc, [], threading.Event()

    def gc():
        passes.append(1)
        if len(passes) == 1:
            raise sqlite3.OperationalError("database is locked")
        stop.set()  # the second pass is the last
        return real_gc()

    monkeypatch.setattr(store, "gc", gc)
    gc_forever(store, interval=0.01, stop=stop)
    assert len(passes) == 2 and not store.has(old)
    assert "store gc skipped until the next pass" in caplog.text and "database is locked" in caplog.text


@pytest.mark.parametrize("failure", ["write", "ledger"])
def test_a_full_disk_is_a_retryable_error_that_says_what_to_free(store, monkeypatch, failure):
    import errno
    import sqlite3

    from workers.storage.store import RETRYABLE, StoreUnavailable

    if failure == "write":
        def mkstemp(**kwargs):
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr("workers.storage.store.tempfile.mkstemp", mkstemp)
    else:
        def record(*args):
            raise sqlite3.OperationalError("database or disk is full")
        monkeypatch.setattr(store._ledger, "record", record)
    with pytest.raises(StoreUnavailable, match=f"no space left for the store at {store.root}") as info:
        store.put(b"a rollout")
    assert isinstance(info.value, RETRYABLE) and "free some space there" in str(info.value)
    monkeypatch.undo()
    cid = store.put(b"a rollout")  # once there is room, the same put succeeds
    assert store.get(cid) == b"a rollout"


def test_put_many_stores_each_item_as_put_does(store, clock):
    items = [b"state 0", b"state 1", b"state 0", pattern("shake256", 1000)]
    cids = store.put_many(items)
    assert cids == [compute(x) for x in items]
    assert all(store.get(cid) == x for cid, x in zip(cids, items, strict=True))
    assert sorted((e.cid, e.size, e.created_at) for e in store.list()) == \
        sorted({(compute(x), len(x), clock.now) for x in items})


def test_a_put_many_failing_part_way_leaves_no_temporary_file_and_can_be_put_again(store, monkeypatch):
    import os

    from workers.storage.store import StoreUnavailable

    items = [b"state 0", b"state 1", b"state 2"]
    synced, real_fsync = [], os.fsync

    def failing_fsync(fd):
        synced.append(fd)
        if len(synced) == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(StoreUnavailable, match="No space left"):  # a full disk: retried once there is room
        store.put_many(items)
    assert len(synced) == 2  # every file is written before any is synced: the second sync failed
    files = [p for p in (store.root / "blocks").rglob("*") if p.is_file()]
    assert files == []  # none in place (synced or not), no temporary file left
    assert not any(store.has(compute(x)) for x in items)

    monkeypatch.setattr(os, "fsync", real_fsync)
    assert store.put_many(items) == [compute(x) for x in items]
    assert all(store.get(compute(x)) == x for x in items)
