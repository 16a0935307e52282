//! FIFO: evict the page that entered the cache first.
//!
//! LRU without the move on a hit. A miss on a full cache evicts the oldest page
//! (written back if dirty); the new page enters at the young end. Matches libCacheSim's
//! `FIFO` (checked against its miss counts on CloudPhysics, `tests/cache/parity.rs`).
//!
//! Per page: two `u32` links and one state byte. O(1) per access.
//!
//! Citation: the textbook policy; L. A. Belady, "A study of replacement algorithms for
//! a virtual-storage computer", IBM Systems Journal 5(2), 1966, compares it first.

use crate::list::{IndexList, Links};
use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

/// First in, first out.
#[derive(Debug)]
pub struct Fifo {
    cap: u32,
    links: Links,
    /// Head = newest, tail = oldest.
    queue: IndexList,
    /// Per page: 0 = not resident, 1 = clean, 2 = dirty.
    state: Vec<u8>,
}

const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;

impl Policy for Fifo {
    type Params = NoParams;
    const NAME: &'static str = "fifo";
    const SUMMARY: &'static str = "first in, first out; hits do not reorder";
    const CITATION: &'static str = "Textbook FIFO; L. A. Belady, A study of replacement algorithms for a virtual-storage computer, IBM Systems Journal 5(2):78-101, 1966.";
    const FOLLOWS: &'static str = "libCacheSim FIFO: equal miss counts";

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(Fifo {
            cap: capacity.max(1),
            links: Links::new(ctx.universe_hint),
            queue: IndexList::new(),
            state: vec![ABSENT; ctx.universe_hint as usize],
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let st = &mut self.state[p as usize];
        if *st != ABSENT {
            if a.op == Op::Write {
                *st = DIRTY;
            }
            return true;
        }
        *st = if a.op == Op::Write { DIRTY } else { CLEAN };
        if self.queue.len() == self.cap {
            if let Some(v) = self.queue.pop_back(&mut self.links) {
                if std::mem::replace(&mut self.state[v as usize], ABSENT) == DIRTY {
                    io.write_back(v);
                } else {
                    io.drop_clean(v);
                }
            }
        }
        self.queue.push_front(&mut self.links, p);
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, ABSENT);
        }
    }

    fn len(&self) -> u32 {
        self.queue.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.queue
                .iter(&self.links)
                .filter(|&p| self.state[p as usize] == DIRTY),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        if self.state.get(page as usize).is_some_and(|&s| s != ABSENT) {
            self.state[page as usize] = ABSENT;
            self.queue.remove(&mut self.links, page);
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::NoParams;
    use crate::policies::lru::Lru;
    use crate::testutil::{run, Ev};

    /// Hand-worked vector (C = 3): `R4` evicts 1, then `R1` misses and evicts 2.
    #[test]
    fn spec_vector() {
        let o = run::<Fifo>(3, &NoParams, 4, "R1 R2 R3 R1 R4 R1");
        assert_eq!(o.hits, [false, false, false, true, false, false]);
        assert_eq!(o.evictions(), [1, 2]);
        assert_eq!(o.hit_count(), 1);
    }

    /// The same trace under LRU evicts 2 at `R4` and hits on the last `R1`.
    #[test]
    fn differs_from_lru_as_the_spec_says() {
        let o = run::<Lru>(3, &NoParams, 4, "R1 R2 R3 R1 R4 R1");
        assert_eq!(o.evictions(), [2]);
        assert_eq!(o.hit_count(), 2);
    }

    #[test]
    fn dirty_pages_are_written_back_once() {
        let o = run::<Fifo>(2, &NoParams, 4, "W1 W1 R2 R3 W2 R4");
        assert_eq!(o.events[3], [Ev::Wb(1)]);
        assert_eq!(o.events[5], [Ev::Wb(2)]);
        assert_eq!(o.write_backs(), [1, 2]);
    }
}
