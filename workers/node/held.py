"""Results a worker process keeps from one event's job for a later one (a validator's early
sampler verdicts, a sampler's shard rolled out ahead of its phase).

Best effort by design: the later job looks its result up and recomputes what it does not find
(another pool process, a restart, an entry dropped for room), so what is held is bounded by a
count and by a byte budget, dropping the oldest first."""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

V = TypeVar("V")


class Held(Generic[V]):
    """Insertion-ordered entries, at most `max_items` of them and `max_bytes` of their `size`s in
    all; an entry larger than the budget alone is not kept."""

    def __init__(self, max_items: int, max_bytes: int, size: Callable[[V], int]):
        self.max_items, self.max_bytes, self.size = max_items, max_bytes, size
        self._entries: "OrderedDict[Hashable, V]" = OrderedDict()

    def put(self, key: Hashable, value: V) -> None:
        self._entries.pop(key, None)  # a replaced entry counts as the newest
        self._entries[key] = value
        while self._entries and (len(self._entries) > self.max_items
                                 or sum(map(self.size, self._entries.values())) > self.max_bytes):
            self._entries.popitem(last=False)

    def get(self, key: Hashable) -> V | None:
        return self._entries.get(key)

    def pop(self, key: Hashable) -> V | None:
        return self._entries.pop(key, None)

    def keys(self) -> list:
        return list(self._entries)
