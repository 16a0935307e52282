"""CLOCK (second chance) written as a wafer policy.

Equals the built-in ``clock`` (and ``clock:insert_ref=0`` with ``insert_ref=0``)
counter by counter and in the after-cache stream (``python/tests/test_policy.py``).
"""

from __future__ import annotations

import wafer


class CLOCK(wafer.Policy):
    """A FIFO ring whose hand spares pages referenced since it last passed them."""

    def __init__(self, capacity: int, insert_ref: int = 1) -> None:
        super().__init__(capacity)
        if insert_ref not in (0, 1):
            raise ValueError(f"insert_ref must be 0 or 1, not {insert_ref!r}")
        self.insert_ref = insert_ref
        # The ring as an ordered dict: the first page is under the hand; the value is
        # its reference bit.
        self.ring: dict[int, int] = {}

    def hit(self, page: int, block: int, write: bool) -> None:
        self.ring[page] = 1

    def insert(self, page: int, block: int, write: bool) -> None:
        self.ring[page] = self.insert_ref

    def evict(self) -> int:
        ring = self.ring
        while True:
            page = next(iter(ring))
            referenced = ring.pop(page)
            if not referenced:
                return page
            ring[page] = 0  # second chance: behind the hand, bit cleared

    def remove(self, page: int, block: int) -> None:
        del self.ring[page]
