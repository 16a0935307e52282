//! Doubly-linked lists of cache lines threaded through flat index arrays (no per-node
//! allocation): paper 004 (Huang et al., "Efficient Cache Design for Solid-State
//! Drives", ACM Computing Frontiers 2010) Sec. 4.1 keeps its dirty lines in such lists,
//! with a pool of free nodes; here the line number is the node.

pub(crate) const NIL: u32 = u32::MAX;

/// Link arrays shared by every list over the same lines.
#[derive(Clone, Debug)]
pub(crate) struct Links {
    prev: Vec<u32>,
    next: Vec<u32>,
}

/// One list: head (oldest) and tail (newest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct List {
    pub head: u32,
    pub tail: u32,
}

impl List {
    pub const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };

    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }
}

impl Links {
    pub fn new(n: usize) -> Links {
        Links {
            prev: vec![NIL; n],
            next: vec![NIL; n],
        }
    }

    /// Append `i` at the tail of `l`.
    #[inline]
    pub fn push_back(&mut self, l: &mut List, i: u32) {
        self.prev[i as usize] = l.tail;
        self.next[i as usize] = NIL;
        if l.tail == NIL {
            l.head = i;
        } else {
            self.next[l.tail as usize] = i;
        }
        l.tail = i;
    }

    /// Unlink `i` from `l` (it must be a member).
    #[inline]
    pub fn remove(&mut self, l: &mut List, i: u32) {
        let (p, n) = (self.prev[i as usize], self.next[i as usize]);
        if p == NIL {
            l.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            l.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
    }

    /// The member after `i`.
    #[inline]
    pub fn next_of(&self, i: u32) -> u32 {
        self.next[i as usize]
    }
}
