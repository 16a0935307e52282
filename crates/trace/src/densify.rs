//! Dense page ids: map sparse 64-bit page keys to `0..universe` in first-seen order, so
//! caches and FTLs keep per-page state in flat arrays instead of hash maps.

use rustc_hash::FxHashMap;

/// Assigns dense `u32` ids to page keys in order of first appearance.
#[derive(Default, Debug, Clone)]
pub struct Densifier {
    map: FxHashMap<u64, u32>,
    keys: Vec<u64>,
}

impl Densifier {
    /// An empty densifier.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty densifier with room for `n` distinct keys.
    pub fn with_capacity(n: usize) -> Self {
        Densifier {
            map: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            keys: Vec::with_capacity(n),
        }
    }

    /// The dense id of `key`, assigning the next one if it is new.
    ///
    /// # Panics
    /// Panics if more than `u32::MAX` distinct keys are seen (a 16 TiB footprint of
    /// 4 KiB pages).
    #[inline]
    pub fn id(&mut self, key: u64) -> u32 {
        let next = self.keys.len() as u32;
        let id = *self.map.entry(key).or_insert(next);
        if id == next {
            assert!(next != u32::MAX, "more than 2^32-1 distinct pages");
            self.keys.push(key);
        }
        id
    }

    /// The dense id of `key` if it was seen.
    pub fn get(&self, key: u64) -> Option<u32> {
        self.map.get(&key).copied()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_in_first_seen_order() {
        let mut d = Densifier::new();
        assert_eq!(d.id(900), 0);
        assert_eq!(d.id(7), 1);
        assert_eq!(d.id(900), 0);
        assert_eq!(d.id(1 << 50), 2);
        assert_eq!(d.len(), 3);
        assert_eq!(d.key(1), 7);
        assert_eq!(d.get(5), None);
    }
}
