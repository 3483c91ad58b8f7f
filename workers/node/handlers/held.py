"""Results a worker process keeps from one event's job for a later one (a validator's early
sampler verdicts, a sampler's shard rolled out ahead of its phase).

Best effort by design: the later job looks its result up and recomputes what it does not find
(another pool process, a restart, an entry dropped for room), so what is held is bounded by a
count and by a byte budget, dropping the oldest first."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Held(Generic[V]):
    """Insertion-ordered entries, at most `max_items` of them and `max_bytes` of their `size`s in
    all; an entry larger than the budget alone is not kept."""

    def __init__(self, max_items: int, max_bytes: int, size: Callable[[V], int]):
        self.max_items, self.max_bytes, self.size = max_items, max_bytes, size
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()  # key -> (value, its size)
        self._bytes = 0

    def put(self, key: Hashable, value: V) -> None:
        self.pop(key)  # a replaced entry counts as the newest
        self._entries[key] = (value, self.size(value))
        self._bytes += self._entries[key][1]
        while self._entries and (len(self._entries) > self.max_items or self._bytes > self.max_bytes):
            _, (_, size) = self._entries.popitem(last=False)
            self._bytes -= size

    def get(self, key: Hashable) -> V | None:
        entry = self._entries.get(key)
        return None if entry is None else entry[0]

    def pop(self, key: Hashable) -> V | None:
        entry = self._entries.pop(key, None)
        if entry is None:
            return None
        self._bytes -= entry[1]
        return entry[0]

    def keys(self) -> list:
        return list(self._entries)
