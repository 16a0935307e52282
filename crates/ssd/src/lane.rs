//! A shared resource that serves each operation in the earliest idle interval, at or
//! after the time the operation's input is ready, that is long enough for it: the host
//! link, the cache DRAM and the flash channels of [`crate::device`]. Operations are
//! placed in the order the device issues them and keep their places (no preemption);
//! one issued later but ready sooner takes an earlier gap instead of waiting behind
//! one that is still waiting for its data (no head-of-line blocking).
//!
//! The busy intervals are kept in start order, merged where they touch, and those
//! ending before the device's horizon (no later operation can be ready earlier) are
//! dropped, so the lane holds only the near future and a placement looks at a few
//! intervals.

use std::collections::VecDeque;

/// Busy intervals of one resource.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lane {
    /// Disjoint, non-touching `[start, end)` intervals in start order.
    busy: VecDeque<(u64, u64)>,
}

impl Lane {
    /// Forget the intervals that end at or before `t` (no operation placed from now
    /// on is ready before `t`).
    #[inline]
    pub fn forget_before(&mut self, t: u64) {
        while let Some(&(_, e)) = self.busy.front() {
            if e > t {
                break;
            }
            self.busy.pop_front();
        }
    }

    /// Place an operation of `dur` ready at `ready`: returns its start, the earliest
    /// `s >= ready` with `[s, s + dur)` idle. A zero duration takes no time and is
    /// not placed.
    #[inline]
    pub fn place(&mut self, ready: u64, dur: u64) -> u64 {
        if dur == 0 {
            return ready;
        }
        // First interval that ends after `ready`: the earlier ones cannot be in the way.
        let mut i = if self.busy.len() <= 16 {
            // A short lane (the usual case): a scan beats a binary search's branches.
            self.busy.iter().take_while(|&&(_, e)| e <= ready).count()
        } else {
            self.busy.partition_point(|&(_, e)| e <= ready)
        };
        let mut s = ready;
        while i < self.busy.len() {
            let (bs, be) = self.busy[i];
            if s + dur <= bs {
                break;
            }
            s = s.max(be);
            i += 1;
        }
        let e = s + dur;
        // Insert `[s, e)` before interval `i`, merging with the neighbours it touches.
        let joins_prev = i > 0 && self.busy[i - 1].1 == s;
        let joins_next = i < self.busy.len() && self.busy[i].0 == e;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.busy[i - 1].1 = self.busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => self.busy[i - 1].1 = e,
            (false, true) => self.busy[i].0 = s,
            (false, false) => self.busy.insert(i, (s, e)),
        }
        s
    }

    /// Intervals held (tests).
    #[cfg(test)]
    fn intervals(&self) -> Vec<(u64, u64)> {
        self.busy.iter().copied().collect()
    }
}

/// A monotone priority queue of times (a radix heap: R. K. Ahuja, K. Mehlhorn, J. B.
/// Orlin, R. E. Tarjan, "Faster Algorithms for the Shortest Path Problem", Journal of
/// the ACM 37(2), 1990): every key pushed is at least the last key popped, which holds
/// for completion times retired as simulated time advances. Key `k` sits in bucket
/// `bits(k xor last)`, so a key moves down at most 64 times between its push and its
/// pop whatever the number of keys held: a backlog of a million requests costs no more
/// per operation than one of ten, where a binary heap's sift walks 20 levels of cold
/// memory.
#[derive(Clone, Debug)]
pub(crate) struct TimeQueue {
    buckets: Vec<Vec<u64>>,
    /// Smallest key of each bucket (`u64::MAX` when empty).
    mins: [u64; 65],
    /// Bit `i`: bucket `i` is not empty.
    nonempty: u128,
    last: u64,
    len: usize,
}

impl Default for TimeQueue {
    fn default() -> TimeQueue {
        TimeQueue {
            buckets: vec![Vec::new(); 65],
            mins: [u64::MAX; 65],
            nonempty: 0,
            last: 0,
            len: 0,
        }
    }
}

impl TimeQueue {
    #[inline]
    fn put(&mut self, k: u64) {
        let b = (64 - (k ^ self.last).leading_zeros()) as usize;
        self.buckets[b].push(k);
        self.mins[b] = self.mins[b].min(k);
        self.nonempty |= 1 << b;
    }

    /// Keys held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Add `k` (at least the last key popped; a smaller one is held as that key).
    #[inline]
    pub fn push(&mut self, k: u64) {
        debug_assert!(k >= self.last, "time queue key {k} below {}", self.last);
        self.put(k.max(self.last));
        self.len += 1;
    }

    /// The smallest key, if any.
    #[inline]
    pub fn peek(&self) -> Option<u64> {
        (self.nonempty != 0).then(|| self.mins[self.nonempty.trailing_zeros() as usize])
    }

    /// Remove and return the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<u64> {
        if self.nonempty == 0 {
            return None;
        }
        let b = self.nonempty.trailing_zeros() as usize;
        if b > 0 {
            // Re-bucket around the new minimum: each key lands in a lower bucket.
            self.last = self.mins[b];
            let mut keys = std::mem::take(&mut self.buckets[b]);
            self.mins[b] = u64::MAX;
            self.nonempty &= !(1 << b);
            for &k in &keys {
                self.put(k);
            }
            // Hand the allocation back so the bucket need not grow it again.
            keys.clear();
            self.buckets[b] = keys;
        }
        let k = self.buckets[0].pop().expect("bucket 0 holds the minimum");
        if self.buckets[0].is_empty() {
            self.nonempty &= !1;
            self.mins[0] = u64::MAX;
        }
        self.len -= 1;
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn an_operation_takes_the_first_gap_that_fits() {
        let mut l = Lane::default();
        assert_eq!(l.place(100, 10), 100); // [100, 110)
        assert_eq!(l.place(0, 10), 0); // ready sooner: before it, not behind it
        assert_eq!(l.place(95, 10), 110); // 95-105 collides: after, merged
        assert_eq!(l.intervals(), vec![(0, 10), (100, 120)]);
        assert_eq!(l.place(5, 90), 10); // exactly fills [10, 100): all merged
        assert_eq!(l.intervals(), vec![(0, 120)]);
        assert_eq!(l.place(50, 0), 50); // no time, not placed
        assert_eq!(l.place(200, 5), 200);
        assert_eq!(l.place(118, 70), 120); // the gap 120-200 is long enough
        assert_eq!(l.place(118, 20), 205); // nothing idle before 205 lasts 20
        assert_eq!(l.intervals(), vec![(0, 190), (200, 225)]);
        l.forget_before(190);
        assert_eq!(l.intervals(), vec![(200, 225)]);
        l.forget_before(225);
        assert!(l.intervals().is_empty());
    }

    #[test]
    fn placements_never_overlap_and_take_the_earliest_gap() {
        let mut l = Lane::default();
        let mut placed: Vec<(u64, u64)> = vec![];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut floor = 0;
        for _ in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // About half the lane's time busy, operations ready up to 400 ahead.
            floor += x % 23;
            let ready = floor + (x >> 8) % 400;
            let dur = 1 + (x >> 20) % 10;
            let s = l.place(ready, dur);
            assert!(s >= ready);
            let free = |t: u64| placed.iter().all(|&(a, b)| t + dur <= a || b <= t);
            assert!(free(s), "[{s}, {}) overlaps", s + dur);
            // Earliest: an idle stretch starts at `ready` or at the end of an interval,
            // and none of those before `s` fits.
            let earlier = std::iter::once(ready).chain(placed.iter().map(|&(_, b)| b));
            assert!(
                earlier.filter(|&t| t >= ready && t < s).all(|t| !free(t)),
                "an earlier gap fits before {s}"
            );
            placed.push((s, s + dur));
            l.forget_before(floor);
            placed.retain(|&(_, b)| b > floor);
        }
    }

    #[test]
    fn the_time_queue_pops_in_order() {
        let mut q = TimeQueue::default();
        let mut h = BinaryHeap::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut now = 0u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 == 0 {
                let k = q.pop();
                assert_eq!(k, h.pop().map(|Reverse(k)| k));
                now = k.unwrap_or(now);
            } else {
                let k = now + (x >> 4) % (1 << ((x >> 60) * 3 + 4));
                q.push(k);
                h.push(Reverse(k));
            }
            assert_eq!(q.peek(), h.peek().map(|&Reverse(k)| k));
            assert_eq!(q.len(), h.len());
        }
    }
}
