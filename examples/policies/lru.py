"""LRU written as a wafer policy: the template for your own.

Equals the built-in ``lru`` counter by counter and in the after-cache stream
(``python/tests/test_policy.py``). Run it with::

    wafer.simulate("traces/pgbench.wtr", policy=LRU, cache="4MiB")
    python -m wafer sim traces/pgbench.wtr --policy py:examples/policies/lru.py:LRU --cache 4MiB
"""

from __future__ import annotations

import wafer


class LRU(wafer.Policy):
    """Least recently used: the page touched longest ago leaves."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        # A dict keeps insertion order: least recently used first.
        self.order: dict[int, None] = {}

    def hit(self, page: int, block: int, write: bool) -> None:
        del self.order[page]
        self.order[page] = None

    def insert(self, page: int, block: int, write: bool) -> None:
        self.order[page] = None

    def evict(self) -> int:
        page = next(iter(self.order))
        del self.order[page]
        return page

    def remove(self, page: int, block: int) -> None:
        del self.order[page]
