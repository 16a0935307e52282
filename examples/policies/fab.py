"""FAB (flash-aware buffer management) written as a wafer policy: a block-level
policy that evicts a whole erase block, its pages written back in page order as one
group.

Pages are grouped by erase block; the groups form a block-level LRU list that any
access to a page moves to the most recent end. A miss on a full cache evicts the group
with the most resident pages, the least recent among equals (H. Jo, J.-U. Kang, S.-Y.
Park, J.-S. Kim, J. Lee, "FAB: flash-aware buffer management policy for portable media
players", IEEE Trans. Consumer Electronics 52(2), 2006). Equals the built-in ``fab``
counter by counter, in the after-cache stream and in the FTL's erases behind it
(``python/tests/test_policy.py``).
"""

from __future__ import annotations

import wafer


class FAB(wafer.Policy):
    """Evicts the erase block with the most cached pages, LRU among equals."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        # Resident pages per block; dict order is block recency, least recent first.
        self.blocks: dict[int, set[int]] = {}

    def _touch(self, block: int) -> set[int]:
        pages = self.blocks.pop(block, None)
        if pages is None:
            pages = set()
        self.blocks[block] = pages
        return pages

    def hit(self, page: int, block: int, write: bool) -> None:
        self._touch(block)

    def insert(self, page: int, block: int, write: bool) -> None:
        self._touch(block).add(page)

    def evict(self) -> list[int]:
        # max() keeps the first of equals: the least recent block.
        victim = max(self.blocks, key=lambda b: len(self.blocks[b]))
        return sorted(self.blocks.pop(victim))

    def remove(self, page: int, block: int) -> None:
        # A trim lowers its block's count without touching its recency.
        pages = self.blocks[block]
        pages.discard(page)
        if not pages:
            del self.blocks[block]
