"""The embedded Redis is a real server on 127.0.0.1 whose data survives a restart (append-only
file); REDIS_URL wins."""
import os

import pytest
from node_support import PORTS

from workers.node.processes import redis_service


def test_embedded_is_a_real_redis_on_loopback(redis_server, rclient):
    assert redis_server.embedded and redis_server.url.startswith("redis://127.0.0.1:")
    assert int(redis_server.url.rsplit(":", 1)[1].split("/")[0]) in PORTS
    info = rclient.info("server")
    assert info["redis_version"].split(".")[0] >= "6" and info["process_id"] == redis_server.pid
    assert rclient.config_get("save")["save"] == ""
    assert rclient.config_get("appendonly")["appendonly"] == "yes"
    assert rclient.config_get("bind")["bind"] == "127.0.0.1"
    assert rclient.config_get("dir")["dir"] == str(redis_server.data_dir)


def test_second_server_takes_next_free_port_and_stops_by_pid(redis_server, tmp_path):
    other = redis_service.start_embedded(tmp_path, ports=PORTS)
    try:
        assert other.url != redis_server.url
        assert other.client().ping()
    finally:
        other.stop()
    assert other.process.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(other.pid, 0)


def test_queued_messages_survive_a_restart(tmp_path):
    """A node's queues (events the watcher enqueued, delayed deadline checks) outlive its Redis."""
    first = redis_service.start_embedded(tmp_path, ports=PORTS)
    try:
        first.client().lpush("validate", b'{"event_key": "0xab:1"}')
        first.client().hset("unacked", "tag", b"delayed check")
    finally:
        first.stop()
    second = redis_service.start_embedded(tmp_path, ports=PORTS)
    try:
        assert second.client().lrange("validate", 0, -1) == [b'{"event_key": "0xab:1"}']
        assert second.client().hget("unacked", "tag") == b"delayed check"
    finally:
        second.stop()


def test_redis_url_is_used_when_given(redis_server, tmp_path, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    service = redis_service.redis_for_node(tmp_path)
    assert not service.embedded and service.url == redis_server.url
    assert not (tmp_path / "redis").exists()


def test_unreachable_redis_url_says_what_to_do(tmp_path, monkeypatch):
    url = "redis://127.0.0.1:16399/0"  # nothing listens there (the embedded one took 16392+)
    monkeypatch.setenv("REDIS_URL", url)
    with pytest.raises(redis_service.RedisUnavailable,
                       match=f"cannot reach Redis at {url}: start it or unset REDIS_URL"):
        redis_service.redis_for_node(tmp_path)


def test_a_redis_password_is_never_shown():
    assert redis_service.redacted("redis://:s3cret@127.0.0.1:6379/3") == "redis://:***@127.0.0.1:6379/3"
    assert redis_service.redacted("redis://user:s3cret@h:6379/0") == "redis://user:***@h:6379/0"
    assert redis_service.redacted("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_credentials_and_urls_redis_refuses_are_named(tmp_path, monkeypatch):
    """A password-protected Redis: none given, a wrong one (never echoed), and a REDIS_URL that is
    no URL each say what to fix."""
    server = redis_service.start_embedded(tmp_path, ports=PORTS)
    try:
        server.client().config_set("requirepass", "right-pw")
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        with pytest.raises(redis_service.RedisUnavailable, match="asks for a password: give it in REDIS_URL"):
            redis_service.connect(f"redis://127.0.0.1:{port}/0")
        with pytest.raises(redis_service.RedisUnavailable, match=r"refused the credentials in REDIS_URL") as info:
            redis_service.connect(f"redis://:wrong-pw@127.0.0.1:{port}/0")
        assert "wrong-pw" not in str(info.value) and ":***@" in str(info.value)
        assert redis_service.connect(f"redis://:right-pw@127.0.0.1:{port}/0").client().ping()
    finally:
        redis_service.RedisService(f"redis://:right-pw@127.0.0.1:{port}/0").client().shutdown(nosave=True)
        server.process.wait(10)
    with pytest.raises(redis_service.RedisUnavailable, match="is not a Redis URL"):
        redis_service.connect("notaurl")
