"""LRU cache of recognised text keyed by the pixels of a text-line crop.

Most of a screen survives from one agent step to the next; the same crop of pixels
always reads the same, so recognition (the expensive half of OCR) runs only on crops
never seen before.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np


def crop_key(crop: np.ndarray) -> bytes:
    """A fast, collision-safe key for an image crop: its shape plus a blake2b digest of its bytes."""
    data = np.ascontiguousarray(crop)
    digest = hashlib.blake2b(data.data, digest_size=16)
    digest.update(repr(data.shape).encode())
    return digest.digest()


class OcrCache:
    """Maps crop keys to (text, confidence); evicts the least recently used entry."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._items: OrderedDict[bytes, tuple[str, float]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: bytes) -> tuple[str, float] | None:
        value = self._items.get(key)
        if value is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: bytes, value: tuple[str, float]) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
