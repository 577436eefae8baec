//! Per-state choice sets of the DPOR searches: the backtrack, done, sleep and enabled sets of a
//! state, as bit sets over dense choice ids (threads of an EM trace, events of an event model).
//! Also the two sleep-set rules `dpor-sleep` applies on both input kinds: the sleep set of a
//! state entered by a choice ([`sleep_after`]), and the race step's fallback to every enabled
//! choice when every candidate is asleep ([`ChoiceSet::keep_awake`]).
//! `stateful-dpor` keeps its sets in one arena per run instead (performance-critical, see
//! src/explore/stateful_dpor/mod.rs), with its slots named there.

use smallvec::SmallVec;

use crate::model::Choice;

/// A set of choices (dense choice ids: threads of an EM trace, events of an event model), as a
/// bit set kept inline up to 128 choices, so that the per-state sets cost no allocation. The
/// one shape of the per-state sets of `dpor` on EM traces (src/explore/dpor/engine.rs) and on
/// event models (src/explore/dpor_events.rs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChoiceSet(SmallVec<[u64; 2]>);

/// The set bits of one word, lowest first.
struct Bits(u64);

impl Iterator for Bits {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b)
    }
}

impl ChoiceSet {
    pub fn contains(&self, t: Choice) -> bool {
        let (w, b) = (t as usize / 64, t % 64);
        self.0.get(w).is_some_and(|x| x >> b & 1 == 1)
    }
    pub fn insert(&mut self, t: Choice) {
        let (w, b) = (t as usize / 64, t % 64);
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << b;
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    pub fn remove(&mut self, t: Choice) {
        let (w, b) = (t as usize / 64, t % 64);
        if let Some(x) = self.0.get_mut(w) {
            *x &= !(1 << b);
        }
    }
    fn word(&self, i: usize) -> u64 {
        self.0.get(i).copied().unwrap_or(0)
    }
    pub fn iter(&self) -> impl Iterator<Item = Choice> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| Bits(w).map(move |b| i as u32 * 64 + b))
    }
    /// Smallest member of `self` that is in `a` and in neither `b` nor `c`.
    pub fn first_in_not_in(&self, a: &ChoiceSet, b: &ChoiceSet, c: &ChoiceSet) -> Option<Choice> {
        (0..self.0.len()).find_map(|i| {
            let w = self.0[i] & a.word(i) & !b.word(i) & !c.word(i);
            (w != 0).then(|| i as u32 * 64 + w.trailing_zeros())
        })
    }
    /// Empties the set, keeping its buffer.
    pub fn clear(&mut self) {
        self.0.clear();
    }
    /// Whether every member of `self` is in `other`.
    pub fn is_subset(&self, other: &ChoiceSet) -> bool {
        self.0.iter().enumerate().all(|(i, &w)| w & !other.word(i) == 0)
    }
    pub fn intersects(&self, other: &ChoiceSet) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }
    /// Drops the members asleep in `sleep`; whether any is left. The race step's rule under
    /// sleep sets (`dpor-sleep` on EM traces and on event models): a candidate asleep at
    /// `pre(i)` is never taken there, so the races its run would reveal are never found; when
    /// every candidate is asleep, `pre(i)` takes every enabled choice instead.
    pub fn keep_awake(&mut self, sleep: &ChoiceSet) -> bool {
        let mut any = false;
        for (i, w) in self.0.iter_mut().enumerate() {
            *w &= !sleep.word(i);
            any |= *w != 0;
        }
        any
    }
}

/// Godefroid's sleep-set entry, as `dpor-sleep` does it on EM traces and on event models: the
/// state entered by taking `c` sleeps on the choices asleep or done at its parent (`sleep`,
/// `done`), other than `c`, that `stays` keeps: those whose next transition is independent of
/// `c`'s and still there, enabled (an independent transition changes neither). Written to `out`.
pub(crate) fn sleep_after(
    sleep: &ChoiceSet,
    done: &ChoiceSet,
    c: Choice,
    mut stays: impl FnMut(Choice) -> bool,
    out: &mut ChoiceSet,
) {
    out.clear();
    for i in 0..sleep.0.len().max(done.0.len()) {
        for b in Bits(sleep.word(i) | done.word(i)) {
            let t = i as u32 * 64 + b;
            if t != c && stays(t) {
                out.insert(t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choice_set_past_the_inline_words() {
        let mut s = ChoiceSet::default();
        assert!(s.is_empty());
        for c in [3, 64, 200] {
            s.insert(c);
        }
        assert!(s.contains(200) && s.contains(3) && !s.contains(4));
        assert_eq!(s.iter().collect::<Vec<_>>(), [3, 64, 200]);
        let mut a = ChoiceSet::default();
        a.insert(64);
        a.insert(200);
        assert!(a.is_subset(&s) && !s.is_subset(&a) && a.intersects(&s));
        assert_eq!(s.first_in_not_in(&s, &a, &ChoiceSet::default()), Some(3));
        s.remove(3);
        assert_eq!(s.first_in_not_in(&s, &a, &ChoiceSet::default()), None);
        s.clear();
        assert!(s.is_empty());
    }
}
