//! Dense page ids: map sparse 64-bit page keys to `0..universe` in first-seen order, so
//! caches and FTLs keep per-page state in flat arrays instead of hash maps.
//!
//! The map itself is the one hash table left on the hot path (every access of a
//! stream, every access while a trace is prepared), and on a large trace each lookup
//! misses the CPU caches. It is an open-addressing table (linear probing, Fibonacci
//! hashing of the key, load factor at most 1/2) of 16-byte slots rather than a
//! general-purpose map, for one reason: a caller that knows the keys of the next
//! accesses can [`Densifier::prefetch`] their slots, so the misses of several lookups
//! overlap instead of following one another.

/// Marks an empty slot: a slot holds its id plus one, so that a table fresh from
/// the system (zeroed) is empty without a pass that fills it.
const EMPTY: u32 = 0;

/// A key and its id plus one (0: empty).
#[derive(Clone, Copy, Debug)]
struct Slot {
    key: u64,
    id1: u32,
}

/// Assigns dense `u32` ids to page keys in order of first appearance.
#[derive(Default, Debug, Clone)]
pub struct Densifier {
    /// Power-of-two table, empty until the first key.
    slots: Vec<Slot>,
    /// 64 - log2(slots.len()): a key's home slot is the top bits of its hash.
    shift: u32,
    keys: Vec<u64>,
}

impl Densifier {
    /// An empty densifier.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty densifier with room for `n` distinct keys.
    pub fn with_capacity(n: usize) -> Self {
        let mut d = Densifier {
            keys: Vec::with_capacity(n),
            ..Densifier::default()
        };
        d.rebuild(Self::slots_for(n));
        d
    }

    /// An empty densifier with room made for `expected` keys where the room can be
    /// had: a sizing hint, such as a trace's stored estimate
    /// ([`crate::DistinctKeys::expected`]). Ids are those of [`Densifier::new`];
    /// what is saved is the tables that growing by doubling would build, fill and
    /// discard on the way. Room that cannot be allocated is not made (the lookups
    /// then grow the table as they would have, and report a real shortage).
    pub fn expecting(expected: u64) -> Self {
        let mut d = Densifier::new();
        if expected > 0
            && d.try_reserve(usize::try_from(expected).unwrap_or(usize::MAX))
                .is_err()
        {
            d = Densifier::new();
        }
        d
    }

    /// Bytes held for `n` distinct keys: the table (16 per slot) and the key list.
    pub fn bytes_for(n: usize) -> u64 {
        Self::slots_for(n) as u64 * std::mem::size_of::<Slot>() as u64 + 8 * n as u64
    }

    /// Slots for `n` keys at a load factor of at most 1/2 (at least 1024).
    ///
    /// Why 1/2 rather than 3/4: on a trace whose keys are mostly new (a third to a
    /// half of the accesses of CloudPhysics x40), each new key is an unsuccessful
    /// search, about 8 probes at a load of 3/4 against 2.5 at 1/2, and a probe run
    /// that leaves its home's cache line misses again: the densifier's lookups took
    /// 2.9 probes on average and left the line on 30 % of the accesses, against 1.7
    /// and 15 % at 1/2. The table is the same size as at 3/4 for key counts from
    /// three eighths to a half of a power of two, and twice as large below that.
    fn slots_for(n: usize) -> usize {
        n.saturating_mul(2)
            .saturating_add(1)
            .checked_next_power_of_two()
            .unwrap_or(1 << (usize::BITS - 1))
            .max(1024)
    }

    /// The home slot of `key` (Fibonacci hashing: sequential keys spread out).
    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// A table of `n` slots (a power of two) holding every key seen.
    fn rebuild(&mut self, n: usize) {
        if let Err(bytes) = self.try_rebuild(n) {
            panic!("memory allocation of {bytes} bytes failed (the densifier's table)");
        }
    }

    /// [`Densifier::rebuild`], with a failed allocation an error: the bytes asked for.
    fn try_rebuild(&mut self, n: usize) -> Result<(), u64> {
        let slots = zeroed_slots(n)
            .ok_or_else(|| (n as u64).saturating_mul(std::mem::size_of::<Slot>() as u64))?;
        let old = std::mem::replace(&mut self.slots, slots);
        self.rehash(&old);
        Ok(())
    }

    /// The table size to grow to when a new key would load it beyond 1/2, if so.
    #[inline(always)]
    fn growth(&self) -> Option<usize> {
        (self.keys.len() * 2 >= self.slots.len())
            .then(|| Self::slots_for(self.keys.len() + 1).max(self.slots.len() * 2))
    }

    /// Move every key of the table `old` into `slots` (empty, a power of two long).
    ///
    /// Why from the old table, in slot order, rather than from the key list in id
    /// order: a key's home is the top bits of its hash, so in a table twice as large
    /// it is twice its old home, and visiting the old slots in order writes the new
    /// table front to back. Re-inserting by id landed each key at a random slot, a
    /// cache miss each: 16 % of a streamed run over 2 million distinct keys went to
    /// growing the table that way. The price is the old table held while the new one
    /// fills (8 bytes per new slot, briefly).
    fn rehash(&mut self, old: &[Slot]) {
        let n = self.slots.len();
        self.shift = 64 - n.trailing_zeros();
        let mask = n - 1;
        for s in old.iter().filter(|s| s.id1 != EMPTY) {
            let mut i = self.home(s.key);
            while self.slots[i].id1 != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = *s;
        }
    }

    /// The dense id of `key`, assigning the next one if it is new.
    ///
    /// # Panics
    /// Panics if more than `u32::MAX - 1` distinct keys are seen (a 16 TiB footprint
    /// of 4 KiB pages).
    #[inline]
    pub fn id(&mut self, key: u64) -> u32 {
        if let Some(n) = self.growth() {
            self.rebuild(n);
        }
        self.find_or_insert(key)
    }

    /// [`Densifier::id`], with a failed allocation (the table or the key list
    /// growing) an error, the bytes asked for, rather than an abort: for callers
    /// that hold a whole trace's keys, where running out of memory is a likely
    /// outcome to report.
    #[inline]
    pub fn try_id(&mut self, key: u64) -> Result<u32, u64> {
        if let Some(n) = self.growth() {
            self.try_rebuild(n)?;
        }
        let len = self.keys.len();
        if len == self.keys.capacity()
            && crate::alloc::fallibly(|| self.keys.try_reserve(1)).is_err()
        {
            return Err(8 * (2 * len as u64).max(4));
        }
        Ok(self.find_or_insert(key))
    }

    /// Make room for `n` more distinct keys, with a failed allocation an error (the
    /// bytes asked for) rather than an abort: after it, the next `n` calls of
    /// [`Densifier::id_in_room`] allocate nothing.
    ///
    /// Why a batch at a time: a caller that densifies many keys checks for room once
    /// per batch, at its boundary, and the per-key lookup has no growth check (the
    /// table grows rarely, doubling). The table may grow a batch early, which changes
    /// no id.
    pub fn try_reserve(&mut self, n: usize) -> Result<(), u64> {
        let want = self.keys.len().saturating_add(n);
        if want.saturating_mul(2) > self.slots.len() {
            let slots = Self::slots_for(want).max(self.slots.len() * 2);
            self.try_rebuild(slots)?;
        }
        if self.keys.capacity() < want {
            // Doubling, as `push` would, so that batch after batch costs amortised O(1).
            let to = want.max(self.keys.capacity().saturating_mul(2));
            let more = to - self.keys.len();
            crate::alloc::fallibly(|| self.keys.try_reserve_exact(more))
                .map_err(|_| 8 * to as u64)?;
        }
        Ok(())
    }

    /// The dense id of `key`, assigning the next one if it is new, in room made by
    /// [`Densifier::try_reserve`] (the hot loop of a batch: no growth check).
    ///
    /// # Panics
    /// Panics if no room was made for a new key (the table would be fuller than
    /// 1/2; in debug builds also when the key list would have to grow) or if more
    /// than `u32::MAX - 1` distinct keys are seen.
    #[inline(always)]
    pub fn id_in_room(&mut self, key: u64) -> u32 {
        debug_assert!(self.keys.len() * 2 < self.slots.len() || self.get(key).is_some());
        debug_assert!(self.keys.len() < self.keys.capacity() || self.get(key).is_some());
        self.find_or_insert(key)
    }

    /// The id of `key`, inserted if new (the table has room).
    #[inline(always)]
    fn find_or_insert(&mut self, key: u64) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s.id1 == EMPTY {
                let id = self.keys.len() as u32;
                assert!(id < u32::MAX - 1, "more than 2^32-2 distinct pages");
                self.slots[i] = Slot { key, id1: id + 1 };
                self.keys.push(key);
                return id;
            }
            if s.key == key {
                return s.id1 - 1;
            }
            i = (i + 1) & mask;
        }
    }

    /// Start loading the slot `key` would be looked up in (a hint: no result
    /// changes), so that a later [`Densifier::id`] of it finds the line in cache,
    /// and the slot two on: the next 64-byte line when the home lies in the second
    /// half of its line, where a probe run of a few slots goes on (it left the
    /// home's line on 15 % of CloudPhysics x40's lookups, each one a second miss),
    /// else the same line again, which costs next to nothing. Always rather than
    /// only when the home is in the second half: a branch taken at random half the
    /// time lost most of the gain (first contact on CloudPhysics x40: 255 ms with
    /// the branch, 238 ms without, 262 ms before either).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        if !self.slots.is_empty() {
            let home = self.home(key);
            crate::prefetch::prefetch(&self.slots, home);
            crate::prefetch::prefetch(&self.slots, home + 2);
        }
    }

    /// The dense id of `key` if it was seen.
    pub fn get(&self, key: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s.id1 == EMPTY {
                return None;
            }
            if s.key == key {
                return Some(s.id1 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// The key of dense id `id`.
    #[inline]
    pub fn key(&self, id: u32) -> u64 {
        self.keys[id as usize]
    }

    /// Number of distinct keys seen.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key was seen.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// A table of `n` empty slots, or None when the system refuses the memory.
///
/// Zeroed by the allocator (`calloc`): a large table comes as fresh pages the kernel
/// zeroes as they are first touched, so nothing writes the whole table before the
/// keys do (filling it with a marker took a pass over every slot at each growth).
#[allow(unsafe_code)]
fn zeroed_slots(n: usize) -> Option<Vec<Slot>> {
    let layout = std::alloc::Layout::array::<Slot>(n).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: a non-zero size; the allocation is freed by the Vec, with the same
    // layout (`Vec<Slot>` of capacity `n`). All zeroes is a valid `Slot` (key 0, empty).
    unsafe {
        let p = crate::alloc::fallibly(|| std::alloc::alloc_zeroed(layout)) as *mut Slot;
        if p.is_null() {
            return None;
        }
        huge_pages(p as usize, layout.size());
        touch(p as *mut u8, layout.size());
        Some(Vec::from_raw_parts(p, n, n))
    }
}

/// Write a zero into every 4 KiB page of the `len` zeroed bytes at `p`, so that each
/// page is faulted in by a write. A table's first access to a page is otherwise a
/// lookup, a read, which maps the kernel's shared zero page; the insert that follows
/// faults again, and replacing that mapping flushes the TLB of every core running the
/// process (an interprocessor interrupt to each other worker). Writing zeros over
/// zeros changes no slot.
///
/// # Safety
/// `p` must point to `len` writable bytes.
#[allow(unsafe_code)]
unsafe fn touch(p: *mut u8, len: usize) {
    for off in (0..len).step_by(4096) {
        // SAFETY: `off < len`, inside the allocation (the caller's contract).
        unsafe { std::ptr::write_volatile(p.add(off), 0) };
    }
}

/// Ask the kernel to back the `len` bytes at `start` (an allocation not yet written)
/// with 2 MiB pages where it can; a hint that changes no result.
///
/// Why: every lookup lands on a random slot of a table of tens of MiB. With 4 KiB
/// pages nearly each one also misses the TLB, which the prefetch does not hide, and
/// the table faults in 4 KiB at a time as it fills (a third of growing it). Where
/// transparent huge pages are `madvise`-only (a common default) the table gets them
/// only when asked.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn huge_pages(start: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    let end = start + len;
    let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
    if from < to {
        // SAFETY: advice on whole pages inside the table's own allocation;
        // MADV_HUGEPAGE changes how they are backed, never their contents. A refusal
        // (an old kernel, THP off) leaves the table as it was: nothing to handle.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages(_: usize, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn ids_are_dense_in_first_seen_order() {
        let mut d = Densifier::new();
        assert_eq!(d.get(5), None);
        assert_eq!(d.id(900), 0);
        assert_eq!(d.id(7), 1);
        assert_eq!(d.id(900), 0);
        assert_eq!(d.id(1 << 50), 2);
        assert_eq!(d.len(), 3);
        assert_eq!(d.key(1), 7);
        assert_eq!(d.get(5), None);
        assert_eq!(d.get(1 << 50), Some(2));
    }

    /// Growth keeps every id: 100,000 keys (table rebuilt seven times), sequential
    /// runs and keys that share their low or high bits, against a standard map.
    #[test]
    fn growth_keeps_every_id() {
        let mut d = Densifier::with_capacity(10);
        let mut m: HashMap<u64, u32> = HashMap::new();
        for i in 0..100_000u64 {
            let key = match i % 4 {
                0 => i,
                1 => i << 40,
                2 => u64::MAX - i,
                _ => i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            };
            let next = m.len() as u32;
            let want = *m.entry(key).or_insert(next);
            assert_eq!(d.id(key), want, "key {key:#x}");
        }
        assert_eq!(d.len(), m.len());
        for (&k, &v) in &m {
            assert_eq!(d.get(k), Some(v));
            assert_eq!(d.key(v), k);
        }
        assert!(d.slots.len() >= d.len() * 2, "load factor <= 1/2");
    }

    /// Ids assigned in room made a batch at a time are those of [`Densifier::id`],
    /// and the room asked for is there: no growth inside a batch.
    #[test]
    fn ids_in_reserved_room_are_the_same() {
        let (mut a, mut b) = (Densifier::new(), Densifier::new());
        let keys: Vec<u64> = (0..50_000u64)
            .map(|i| (i * 7919) % 30_011 + ((i % 3) << 40))
            .collect();
        for batch in keys.chunks(777) {
            b.try_reserve(batch.len()).unwrap();
            let (slots, cap) = (b.slots.len(), b.keys.capacity());
            for &k in batch {
                assert_eq!(b.id_in_room(k), a.id(k));
            }
            assert_eq!((b.slots.len(), b.keys.capacity()), (slots, cap));
            assert!(b.slots.len() >= b.len() * 2, "load factor <= 1/2");
        }
        assert_eq!(a.len(), b.len());
    }

    /// A table made for the keys expected does not grow while they arrive; a hint
    /// that cannot be allocated leaves an empty densifier that grows as usual.
    #[test]
    fn a_table_made_for_the_expected_keys_does_not_grow() {
        let mut d = Densifier::expecting(100_000);
        let slots = d.slots.len();
        assert_eq!(slots, 1 << 18);
        for k in 0..100_000u64 {
            d.id(k * 7);
        }
        assert_eq!(d.slots.len(), slots);
        let mut far = Densifier::expecting(u64::MAX / 64);
        assert_eq!((far.len(), far.slots.len()), (0, 0));
        assert_eq!(far.id(3), 0);
    }

    /// Room that cannot be had is an error naming the bytes asked for, and the
    /// densifier is left as it was.
    #[test]
    fn room_beyond_the_address_space_is_an_error() {
        let mut d = Densifier::new();
        assert_eq!(d.id(5), 0);
        let bytes = d.try_reserve(usize::MAX / 64).unwrap_err();
        assert!(bytes >= (usize::MAX / 64) as u64 * 16, "{bytes}");
        assert_eq!((d.len(), d.get(5)), (1, Some(0)));
        d.try_reserve(1).unwrap();
        assert_eq!(d.id_in_room(6), 1);
    }

    proptest! {
        /// Same ids as a first-seen numbering with a standard map, for any keys
        /// (prefetching in between changes nothing), and whatever size the table was
        /// made for at first ([`Densifier::expecting`]: none, short, or more).
        #[test]
        fn agrees_with_a_map(keys in prop::collection::vec(prop::num::u64::ANY, 0..3000), few in 1u64..64, expected in prop::sample::select(vec![0u64, 10, 1500, 5000])) {
            let mut d = Densifier::expecting(expected);
            let mut m: HashMap<u64, u32> = HashMap::new();
            for (i, &k) in keys.iter().enumerate() {
                let k = if i % 2 == 0 { k % few } else { k };
                d.prefetch(k ^ 1);
                let next = m.len() as u32;
                prop_assert_eq!(d.id(k), *m.entry(k).or_insert(next));
            }
            prop_assert_eq!(d.len(), m.len());
        }
    }
}
