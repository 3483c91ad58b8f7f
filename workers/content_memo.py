"""Results of a pure function of bytes, kept by the bytes themselves.

A validator reads the same committed blobs in several jobs (the previous checkpoint in every phase
of a round, the checkpoint it checked in one round as the next round's start), and parsing one
means hashing megabytes. `ContentMemo` keeps a function's result keyed by the whole input: a
lookup matches only bytes equal to the ones the result was computed from (Python compares bytes
keys in full once their hashes agree), so a changed byte is a miss and recomputes, and nothing
kept can stand in for other content. Bounded by a count and a byte budget, oldest dropped first;
process-local and best effort (a miss costs only the recomputation)."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


class ContentMemo(Generic[V]):
    """At most `max_items` results, for inputs of at most `max_bytes` in all (an input larger than
    the budget alone is not kept); the most recently used kept longest."""

    def __init__(self, max_items: int, max_bytes: int):
        self.max_items, self.max_bytes = max_items, max_bytes
        self._entries: OrderedDict[bytes, V] = OrderedDict()
        self._bytes = 0

    def get(self, data: bytes) -> V | None:
        """The result kept for exactly `data`, or None."""
        result = self._entries.get(data)
        if result is not None:
            self._entries.move_to_end(data)
        return result

    def put(self, data: bytes, result: V) -> None:
        """Keep `result` as the one for `data` (bytes: a mutable buffer could change under its key)."""
        if not isinstance(data, bytes):
            raise TypeError(f"a memo key must be bytes, got {type(data).__name__}")
        if len(data) > self.max_bytes:
            return
        if data in self._entries:
            self._bytes -= len(data)
            del self._entries[data]
        self._entries[data] = result
        self._bytes += len(data)
        while self._entries and (len(self._entries) > self.max_items or self._bytes > self.max_bytes):
            dropped, _ = self._entries.popitem(last=False)
            self._bytes -= len(dropped)

    def items(self) -> Iterator[tuple[bytes, V]]:
        """(input, result) of each kept result, the most recently used first."""
        return reversed(list(self._entries.items()))

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)


def memoized(memo: ContentMemo[V], data: bytes, compute: Callable[[bytes], V]) -> V:
    """compute(data), taken from `memo` when it holds a result for exactly these bytes."""
    result = memo.get(data)
    if result is None:
        result = compute(data)
        memo.put(data, result)
    return result
