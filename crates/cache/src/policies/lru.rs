//! LRU: evict the least recently used page.
//!
//! The textbook policy. A hit moves the page to the MRU end; a miss on a full cache
//! evicts the LRU tail (written back if dirty).
//! Per page: two `u32` links and one dirty byte. O(1) per access.

use crate::list::{IndexList, Links};
use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

/// Least recently used.
#[derive(Debug)]
pub struct Lru {
    cap: u32,
    links: Links,
    list: IndexList,
    /// Per page: 0 = not resident, 1 = clean, 2 = dirty.
    state: Vec<u8>,
}

const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;

impl Policy for Lru {
    type Params = NoParams;
    const NAME: &'static str = "lru";
    const SUMMARY: &'static str = "least recently used";
    const CITATION: &'static str =
        "Textbook LRU; e.g. A. Silberschatz, P. B. Galvin, G. Gagne, Operating System Concepts, Wiley.";
    const FOLLOWS: &'static str = "libCacheSim LRU: equal miss counts";

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(Lru {
            cap: capacity.max(1),
            links: Links::new(ctx.universe_hint),
            list: IndexList::new(),
            state: vec![ABSENT; ctx.universe_hint as usize],
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let st = &mut self.state[p as usize];
        let hit = *st != ABSENT;
        if hit {
            if a.op == Op::Write {
                *st = DIRTY;
            }
            self.list.move_to_front(&mut self.links, p);
            return true;
        }
        *st = if a.op == Op::Write { DIRTY } else { CLEAN };
        if self.list.len() == self.cap {
            let v = self
                .list
                .pop_back(&mut self.links)
                .expect("full cache has a tail");
            let vs = std::mem::replace(&mut self.state[v as usize], ABSENT);
            if vs == DIRTY {
                io.write_back(v);
            } else {
                io.drop_clean(v);
            }
        }
        self.list.push_front(&mut self.links, p);
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, ABSENT);
        }
    }

    fn len(&self) -> u32 {
        self.list.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.list
                .iter(&self.links)
                .filter(|&p| self.state[p as usize] == DIRTY),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        if self.state.get(page as usize).is_some_and(|&s| s != ABSENT) {
            self.state[page as usize] = ABSENT;
            self.list.remove(&mut self.links, page);
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run, Ev};

    /// Hand-worked vector 1 (C = 3).
    #[test]
    fn spec_vector_1() {
        let o = run::<Lru>(3, &NoParams, 4, "R1 R2 R3 R1 R4");
        assert_eq!(o.hits, [false, false, false, true, false]);
        assert_eq!(o.evictions(), [2]);
    }

    /// Hand-worked vector 2: dirty eviction and dirty_at_end.
    #[test]
    fn spec_vector_2() {
        let o = run::<Lru>(3, &NoParams, 4, "W1 R2 R3 R4 W2 R1");
        assert_eq!(o.events[3], [Ev::Wb(1)]);
        assert_eq!(o.events[5], [Ev::Ev(3)]);
        assert_eq!(o.hit_count(), 1);
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        assert_eq!(d, [2]);
    }
}
