//! Intrusive doubly-linked lists threaded through one array of links indexed by dense
//! page id. A page is on at most one list of a given [`Links`] array; several lists
//! (ARC's T1/T2/B1/B2) share one array. All operations are O(1) and allocation-free
//! once the array is sized. A node's two links sit together (8 bytes), so touching a
//! node is one cache line, not two: an unlink touches three random nodes.

/// Marker for "no node".
pub const NIL: u32 = u32::MAX;

/// One node's links.
#[derive(Clone, Copy, Debug)]
struct Node {
    prev: u32,
    next: u32,
}

const UNLINKED: Node = Node {
    prev: NIL,
    next: NIL,
};

/// Per-node links shared by all lists over the same ids.
#[derive(Clone, Debug, Default)]
pub struct Links {
    nodes: Vec<Node>,
}

impl Links {
    /// Links for ids `< n`.
    pub fn new(n: u32) -> Self {
        Links {
            nodes: vec![UNLINKED; n as usize],
        }
    }

    /// Grow to ids `< n` (never shrinks).
    pub fn reserve(&mut self, n: u32) {
        if n as usize > self.nodes.len() {
            self.nodes.resize(n as usize, UNLINKED);
        }
    }

    /// Number of ids the links can hold.
    pub fn size(&self) -> u32 {
        self.nodes.len() as u32
    }
}

/// One list: head = most recently pushed with [`IndexList::push_front`] (MRU), tail =
/// the other end (LRU / FIFO oldest).
#[derive(Clone, Copy, Debug)]
pub struct IndexList {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for IndexList {
    fn default() -> Self {
        IndexList {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

impl IndexList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// First node (MRU end), if any.
    #[inline]
    pub fn head(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    /// Last node (LRU end), if any.
    #[inline]
    pub fn tail(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// Node after `id` towards the tail.
    #[inline]
    pub fn next(&self, l: &Links, id: u32) -> Option<u32> {
        let n = l.nodes[id as usize].next;
        (n != NIL).then_some(n)
    }

    /// Node before `id` towards the head.
    #[inline]
    pub fn prev(&self, l: &Links, id: u32) -> Option<u32> {
        let p = l.nodes[id as usize].prev;
        (p != NIL).then_some(p)
    }

    /// Insert `id` (not on any list of `l`) at the head.
    #[inline]
    pub fn push_front(&mut self, l: &mut Links, id: u32) {
        let i = id as usize;
        l.nodes[i].prev = NIL;
        l.nodes[i].next = self.head;
        if self.head != NIL {
            l.nodes[self.head as usize].prev = id;
        } else {
            self.tail = id;
        }
        self.head = id;
        self.len += 1;
    }

    /// Insert `id` (not on any list of `l`) at the tail.
    #[inline]
    pub fn push_back(&mut self, l: &mut Links, id: u32) {
        let i = id as usize;
        l.nodes[i].next = NIL;
        l.nodes[i].prev = self.tail;
        if self.tail != NIL {
            l.nodes[self.tail as usize].next = id;
        } else {
            self.head = id;
        }
        self.tail = id;
        self.len += 1;
    }

    /// Insert `id` (not on any list) just before `at` (towards the head).
    #[inline]
    pub fn insert_before(&mut self, l: &mut Links, at: u32, id: u32) {
        let p = l.nodes[at as usize].prev;
        if p == NIL {
            self.push_front(l, id);
            return;
        }
        l.nodes[id as usize].prev = p;
        l.nodes[id as usize].next = at;
        l.nodes[p as usize].next = id;
        l.nodes[at as usize].prev = id;
        self.len += 1;
    }

    /// Unlink `id`, which must be on this list.
    #[inline]
    pub fn remove(&mut self, l: &mut Links, id: u32) {
        let i = id as usize;
        let (p, n) = (l.nodes[i].prev, l.nodes[i].next);
        if p != NIL {
            l.nodes[p as usize].next = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            l.nodes[n as usize].prev = p;
        } else {
            self.tail = p;
        }
        l.nodes[i].prev = NIL;
        l.nodes[i].next = NIL;
        self.len -= 1;
    }

    /// Remove and return the tail.
    #[inline]
    pub fn pop_back(&mut self, l: &mut Links) -> Option<u32> {
        let t = self.tail()?;
        self.remove(l, t);
        Some(t)
    }

    /// Remove and return the head.
    #[inline]
    pub fn pop_front(&mut self, l: &mut Links) -> Option<u32> {
        let h = self.head()?;
        self.remove(l, h);
        Some(h)
    }

    /// Move `id` (on this list) to the head.
    #[inline]
    pub fn move_to_front(&mut self, l: &mut Links, id: u32) {
        if self.head != id {
            self.remove(l, id);
            self.push_front(l, id);
        }
    }

    /// Move `id` (on this list) to the tail.
    #[inline]
    pub fn move_to_back(&mut self, l: &mut Links, id: u32) {
        if self.tail != id {
            self.remove(l, id);
            self.push_back(l, id);
        }
    }

    /// Iterate from head to tail.
    pub fn iter<'a>(&self, l: &'a Links) -> impl Iterator<Item = u32> + 'a {
        let mut cur = self.head;
        std::iter::from_fn(move || {
            if cur == NIL {
                return None;
            }
            let c = cur;
            cur = l.nodes[c as usize].next;
            Some(c)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    #[derive(Debug, Clone)]
    enum Cmd {
        PushFront(u32),
        PushBack(u32),
        Remove(u32),
        PopBack,
        PopFront,
        ToFront(u32),
        ToBack(u32),
        Before(u32, u32),
    }

    fn cmd() -> impl Strategy<Value = Cmd> {
        prop_oneof![
            (0u32..16).prop_map(Cmd::PushFront),
            (0u32..16).prop_map(Cmd::PushBack),
            (0u32..16).prop_map(Cmd::Remove),
            Just(Cmd::PopBack),
            Just(Cmd::PopFront),
            (0u32..16).prop_map(Cmd::ToFront),
            (0u32..16).prop_map(Cmd::ToBack),
            (0u32..16, 0u32..16).prop_map(|(a, b)| Cmd::Before(a, b)),
        ]
    }

    proptest! {
        /// The list behaves exactly like a VecDeque model under any command sequence.
        #[test]
        fn matches_vecdeque_model(cmds in proptest::collection::vec(cmd(), 0..200)) {
            let mut l = Links::new(16);
            let mut list = IndexList::new();
            let mut model: VecDeque<u32> = VecDeque::new();
            for c in cmds {
                match c {
                    Cmd::PushFront(x) if !model.contains(&x) => { list.push_front(&mut l, x); model.push_front(x); }
                    Cmd::PushBack(x) if !model.contains(&x) => { list.push_back(&mut l, x); model.push_back(x); }
                    Cmd::Remove(x) if model.contains(&x) => {
                        list.remove(&mut l, x);
                        model.retain(|&y| y != x);
                    }
                    Cmd::PopBack => prop_assert_eq!(list.pop_back(&mut l), model.pop_back()),
                    Cmd::PopFront => prop_assert_eq!(list.pop_front(&mut l), model.pop_front()),
                    Cmd::ToFront(x) if model.contains(&x) => {
                        list.move_to_front(&mut l, x);
                        model.retain(|&y| y != x); model.push_front(x);
                    }
                    Cmd::ToBack(x) if model.contains(&x) => {
                        list.move_to_back(&mut l, x);
                        model.retain(|&y| y != x); model.push_back(x);
                    }
                    Cmd::Before(at, x) if model.contains(&at) && !model.contains(&x) => {
                        list.insert_before(&mut l, at, x);
                        let pos = model.iter().position(|&y| y == at).unwrap();
                        model.insert(pos, x);
                    }
                    _ => {}
                }
                let got: Vec<u32> = list.iter(&l).collect();
                let want: Vec<u32> = model.iter().copied().collect();
                prop_assert_eq!(&got, &want);
                prop_assert_eq!(list.len() as usize, model.len());
                prop_assert_eq!(list.head(), model.front().copied());
                prop_assert_eq!(list.tail(), model.back().copied());
            }
        }
    }
}
