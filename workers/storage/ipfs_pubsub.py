"""An IPFS node's pubsub over its RPC API (kubo, js-ipfs): publish bytes on a topic, follow a
topic's messages. Plain HTTP (requests): ipfshttpclient 0.7's pubsub helpers predate the RPC's
multibase encoding, in which topics (the `arg`) and each message's `data` travel as `u` +
base64url without padding.

A message reaches the subscriptions that the publishing node and its peers hold when it is
published (no history: a subscription opened later never sees it)."""
from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from workers.storage.ipfs_rpc import api_url

log = logging.getLogger(__name__)

PUBLISH_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 300.0
"""A subscription quiet this long is opened again (a node that restarted without closing the
stream, which a restart on this machine does not do, would otherwise go unnoticed for ever)."""
RETRY_S = (0.25, 0.5, 1.0, 2.0, 5.0)
"""Waits before opening a lost subscription again: the first at once-ish, then up to 5 s apart."""


class PubsubUnavailable(RuntimeError):
    """The IPFS node cannot be reached, or refused the call; the message says which node and why."""


class NoSubscribers(PubsubUnavailable):
    """The node published to nobody: no peer of it subscribes to the topic (yet)."""


def multibase(data: bytes) -> str:
    return "u" + base64.urlsafe_b64encode(data).decode().rstrip("=")


def from_multibase(text: str) -> bytes:
    if not text.startswith("u"):
        raise ValueError(f"not base64url multibase: {text[:16]!r}")
    body = text[1:]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


@dataclass(frozen=True)
class Message:
    sender: str
    """The libp2p peer id that published it (authenticated by libp2p, unrelated to any account)."""
    data: bytes


def publish(api: str, topic: str, data: bytes, timeout: float = PUBLISH_TIMEOUT_S) -> None:
    """Publish `data` on `topic` through the node at `api`; PubsubUnavailable (NoSubscribers when no
    peer listens) if it did not."""
    import requests

    url = f"{api_url(api)}/api/v0/pubsub/pub"
    try:
        response = requests.post(url, params={"arg": multibase(topic.encode())}, timeout=timeout,
                                 files={"file": ("data", data, "application/octet-stream")})
    except requests.RequestException as exc:
        raise PubsubUnavailable(f"IPFS node at {api} unreachable for pubsub: {exc}") from None
    if response.status_code != 200:
        text = response.text[:300]
        kind = NoSubscribers if "InsufficientPeers" in text else PubsubUnavailable
        raise kind(f"IPFS node at {api} did not publish on {topic!r} (HTTP {response.status_code}): {text}")


def subscribe(api: str, topic: str, read_timeout: float = READ_TIMEOUT_S,
              on_open: Callable[[], None] = lambda: None) -> Iterator[Message]:
    """The messages the node at `api` receives on `topic` from now on, until the stream breaks
    (PubsubUnavailable). `on_open` is called once the node confirmed the subscription. Lines that
    are not a message with data (the node's opening `{}`) are skipped."""
    import requests

    url = f"{api_url(api)}/api/v0/pubsub/sub"
    try:
        with requests.post(url, params={"arg": multibase(topic.encode())}, stream=True,
                           timeout=(PUBLISH_TIMEOUT_S, read_timeout)) as response:
            if response.status_code != 200:
                raise PubsubUnavailable(f"IPFS node at {api} refused to subscribe to {topic!r} "
                                        f"(HTTP {response.status_code}): {response.text[:300]}")
            on_open()
            for line in response.iter_lines():
                message = _message(line)
                if message is not None:
                    yield message
    except requests.RequestException as exc:
        raise PubsubUnavailable(f"subscription to {topic!r} at {api} ended: {type(exc).__name__}") from None
    raise PubsubUnavailable(f"subscription to {topic!r} at {api} ended: the node closed it")


def _message(line: bytes) -> Message | None:
    try:
        raw = json.loads(line)
        return Message(str(raw["from"]), from_multibase(raw["data"])) if isinstance(raw, dict) and "data" in raw \
            else None
    except (ValueError, KeyError, TypeError):
        return None


def follow(api: str, topic: str, on_message: Callable[[Message], None], stop: threading.Event,
           read_timeout: float = READ_TIMEOUT_S, retry_s: tuple[float, ...] = RETRY_S) -> None:
    """Calls on_message for every message on `topic` at `api` until `stop` is set, subscribing
    again whenever the subscription is lost (the node restarted, or went quiet for read_timeout),
    after the waits of `retry_s` (the last repeated). Messages published while no subscription
    is open are not seen."""
    failures = 0

    def opened() -> None:
        nonlocal failures
        log.info("subscribed to %s at %s", topic, api)
        failures = 0

    while not stop.is_set():
        try:
            for message in subscribe(api, topic, read_timeout, on_open=opened):
                on_message(message)
                if stop.is_set():
                    return
        except PubsubUnavailable as exc:
            if failures == 0 or failures == len(retry_s):
                log.warning("%s; subscribing again", exc)
        stop.wait(retry_s[min(failures, len(retry_s) - 1)])
        failures += 1
