"""workers/storage/ipfs_pubsub.py's plain parts: the RPC's multibase encoding of topics and data
(as js-ipfs 0.66 and kubo write it), its API address, and the stream's lines."""
import pytest

from workers.storage.ipfs_pubsub import Message, _message, from_multibase, multibase
from workers.storage.ipfs_rpc import api_url


def test_multibase_is_base64url_without_padding():
    assert multibase(b"decentrl/test") == "uZGVjZW50cmwvdGVzdA"  # what js-ipfs answers in pubsub/ls
    for data in (b"", b"a", b"ab", b"abc", bytes(range(256))):
        assert from_multibase(multibase(data)) == data
    with pytest.raises(ValueError, match="not base64url multibase"):
        from_multibase("mZGVj")


def test_api_url_from_a_multiaddr_or_a_url():
    assert api_url("/ip4/127.0.0.1/tcp/5101/http") == "http://127.0.0.1:5101"
    assert api_url("http://10.0.0.5:5001") == "http://10.0.0.5:5001"
    assert api_url("/ip6/::1/tcp/5001/http") == "http://[::1]:5001"
    assert api_url("/dns/ipfs.example/tcp/443/https") == "https://ipfs.example:443"
    with pytest.raises(ValueError, match="bad IPFS API address"):
        api_url("/ip4/127.0.0.1/udp/5001")


def test_stream_lines_that_are_not_messages_are_skipped():
    assert _message(b'{"from":"12D3Koo","data":"uaGVsbG8w","seqno":"ugfw","topicIDs":["uZA"]}') == \
        Message("12D3Koo", b"hello0")
    for line in (b"{}", b"", b"not json", b'{"from":"x","data":"not multibase"}', b"[1]", b'{"data":"u!!"}'):
        assert _message(line) is None, line
