//! A FIFO of page ids in a power-of-two buffer: a clock modelled as a queue whose
//! front is the page under the hand (sparing a page = moving it from the front to
//! the back; a new page goes to the back, just behind the hand).
//!
//! A clock hand that spares a page moves it from the front to the back; in a ring
//! buffer that is one read and one write next to each other, with the index wrapped
//! by a mask instead of a compare (what `VecDeque` does for any capacity). The buffer
//! doubles when full, so a policy can size it for the cache and let tombstones (pages
//! that left from inside the ring, see `policies/ts_clock.rs`) push it past that.
//!
//! Memory: 4 bytes per slot; slots = the largest length reached, rounded up to a
//! power of two.

/// The queue; `head` and `tail` count pushes and pops and are wrapped by `mask`.
#[derive(Debug)]
pub(crate) struct Ring {
    buf: Vec<u32>,
    mask: usize,
    head: usize,
    tail: usize,
}

impl Ring {
    /// An empty ring with room for at least `n` entries before it grows.
    pub(crate) fn with_capacity(n: usize) -> Ring {
        let n = n.max(16).next_power_of_two();
        Ring {
            buf: vec![0; n],
            mask: n - 1,
            head: 0,
            tail: 0,
        }
    }

    /// Entries in the queue.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tail - self.head
    }

    /// The front entry (the page under the hand); the queue must not be empty.
    #[inline]
    pub(crate) fn front(&self) -> u32 {
        debug_assert!(self.len() > 0, "front of an empty ring");
        self.buf[self.head & self.mask]
    }

    /// The entry `k` places behind the front, if the queue is that long.
    #[inline]
    pub(crate) fn ahead(&self, k: usize) -> Option<u32> {
        (k < self.len()).then(|| self.buf[(self.head + k) & self.mask])
    }

    /// Drop the front entry; the queue must not be empty.
    #[inline]
    pub(crate) fn pop_front(&mut self) {
        debug_assert!(self.len() > 0, "pop from an empty ring");
        self.head += 1;
    }

    /// Append `p` behind the hand.
    #[inline]
    pub(crate) fn push_back(&mut self, p: u32) {
        if self.len() == self.buf.len() {
            self.grow();
        }
        self.buf[self.tail & self.mask] = p;
        self.tail += 1;
    }

    /// Move the front entry to the back (the hand passes a page). Never grows: the
    /// slot written is the one just read when the buffer is full.
    #[inline]
    pub(crate) fn rotate(&mut self) {
        let p = self.front();
        self.head += 1;
        self.buf[self.tail & self.mask] = p;
        self.tail += 1;
    }

    /// Keep only the entries for which `keep` is true, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let mut w = self.head;
        for i in self.head..self.tail {
            let p = self.buf[i & self.mask];
            if keep(p) {
                self.buf[w & self.mask] = p;
                w += 1;
            }
        }
        self.tail = w;
    }

    /// The entries from the front, in order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (self.head..self.tail).map(|i| self.buf[i & self.mask])
    }

    /// Double the buffer, keeping the order (front first at slot 0).
    #[cold]
    fn grow(&mut self) {
        let n = self.buf.len() * 2;
        let mut buf = Vec::with_capacity(n);
        buf.extend((self.head..self.tail).map(|i| self.buf[i & self.mask]));
        let len = buf.len();
        buf.resize(n, 0);
        *self = Ring {
            buf,
            mask: n - 1,
            head: 0,
            tail: len,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Random pushes, pops, rotations and filters agree with `VecDeque` through
    /// several growths and many wrap-arounds.
    #[test]
    fn behaves_as_a_vecdeque() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut r = Ring::with_capacity(1);
        let mut m: VecDeque<u32> = VecDeque::new();
        for i in 0..200_000u32 {
            match rng.gen_range(0..10) {
                0..=3 => {
                    r.push_back(i);
                    m.push_back(i);
                }
                4..=5 if !m.is_empty() => {
                    assert_eq!(r.front(), m[0]);
                    assert_eq!(r.ahead(m.len() / 2), m.get(m.len() / 2).copied());
                    assert_eq!(r.ahead(m.len()), None);
                    r.pop_front();
                    m.pop_front();
                }
                6..=8 if !m.is_empty() => {
                    r.rotate();
                    let x = m.pop_front().unwrap();
                    m.push_back(x);
                }
                9 if i % 97 == 0 => {
                    r.retain(|x| x % 3 != 0);
                    m.retain(|x| x % 3 != 0);
                }
                _ => {}
            }
            assert_eq!(r.len(), m.len());
        }
        assert!(r.iter().eq(m.iter().copied()));
    }
}
