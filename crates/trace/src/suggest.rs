//! "Did you mean": the known name a mistyped one most likely stands for, so that
//! every refusal of an unknown name (policy, parameter, device, format, preset)
//! suggests the same way in every front end.
//!
//! The distance is the optimal string alignment distance (Levenshtein with adjacent
//! transpositions counted as one edit), so `lur` is one edit from `lru`, as a reader
//! counts it, rather than two.

/// The name of `known` closest to `name` (case and surrounding space ignored), if it
/// is within a third of the name's length (at least one edit): close enough to be a
/// typo rather than another name.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let name = name.trim().to_ascii_lowercase();
    let limit = (name.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (distance(&name, &k.to_ascii_lowercase()), k))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// `; did you mean `x`?` for the closest known name, or nothing.
pub fn hint<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, known).map_or(String::new(), |k| format!("; did you mean `{k}`?"))
}

/// Optimal string alignment distance in characters: insertions, deletions,
/// substitutions and transpositions of two adjacent characters, each one edit.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for transpositions), one back, this one.
    let mut back2 = vec![0; b.len() + 1];
    let mut back1: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (back1[j - 1] + cost).min(back1[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(back2[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut back2, &mut back1);
        std::mem::swap(&mut back1, &mut row);
    }
    back1[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_a_transposition_as_one_edit() {
        assert_eq!(distance("lur", "lru"), 1);
        assert_eq!(distance("lru", "lru"), 0);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        // OSA, not Damerau: a substring is not edited twice.
        assert_eq!(distance("ca", "abc"), 3);
    }

    #[test]
    fn suggestions_are_typos_only() {
        let known = ["lru", "arc", "clock", "microsd-16g"];
        assert_eq!(closest("lur", known), Some("lru"));
        assert_eq!(closest("ARC ", known), Some("arc"));
        assert_eq!(closest("microsd-61g", known), Some("microsd-16g"));
        assert_eq!(closest("zzz", known), None);
        assert_eq!(hint("clcok", known), "; did you mean `clock`?");
        assert_eq!(hint("nothing-like", known), "");
    }
}
