//! Per-state choice sets of the DPOR searches: the backtrack, done, sleep and enabled sets of a
//! state, as bit sets over dense choice ids (threads of an EM trace, events of an event model).
//! Also the two sleep-set rules `dpor-sleep` applies on both input kinds: the sleep set of a
//! state entered by a choice ([`sleep_after`]), and the race step's fallback to every enabled
//! choice when every candidate is asleep ([`ChoiceSet::keep_awake`]).
//!
//! Two layouts of the same sets, one per way of holding states:
//! - [`ChoiceSet`]: one growable set, for the frames of a path (`dpor`, `dpor-sleep`, `em-dpor`
//!   on EM traces and `dpor` on event models), which come and go with the path;
//! - [`SetArena`]: a fixed block of named sets per state, every state's block side by side in one
//!   buffer, for a search that keeps every state it visits (`stateful-dpor`): a new state costs
//!   no allocation, and 4 sets of up to 64 choices take 32 bytes, not 4 x 24 of `ChoiceSet`s.
//! The word-level helpers below ([`for_each_bit`], [`first_bit`], [`first_bit_from`]) serve both.

use smallvec::SmallVec;

use crate::model::Choice;

/// A set of choices (dense choice ids: threads of an EM trace, events of an event model), as a
/// bit set kept inline up to 128 choices, so that the per-state sets cost no allocation. The
/// one shape of the per-state sets of `dpor` on EM traces (src/explore/dpor/engine.rs) and on
/// event models (src/explore/dpor_events.rs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChoiceSet(SmallVec<[u64; 2]>);

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

/// Which set of a state's block in a [`SetArena`] (the arena's user names its slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot(pub usize);

/// Per-state sets of choices for a search that stores its states: `SLOTS` sets of a fixed
/// width per state, state `n`'s block at `n`, all in one buffer (see the module header).
pub struct SetArena<const SLOTS: usize> {
    words: Vec<u64>,
    /// Words per set: enough for every choice of the model.
    width: usize,
}

impl<const SLOTS: usize> SetArena<SLOTS> {
    /// An arena for sets over choices `0..choices`.
    pub fn new(choices: usize) -> Self {
        SetArena { words: Vec::new(), width: choices.div_ceil(64).max(1) }
    }

    /// Words per set.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Adds the next state's block, every set empty.
    pub fn push_state(&mut self) {
        self.words.resize(self.words.len() + SLOTS * self.width, 0);
    }

    /// Set `slot` of state `n`, word by word.
    #[inline]
    pub fn get(&self, n: u32, slot: Slot) -> &[u64] {
        let at = (n as usize * SLOTS + slot.0) * self.width;
        &self.words[at..at + self.width]
    }

    #[inline]
    pub fn contains(&self, n: u32, slot: Slot, c: Choice) -> bool {
        self.words[(n as usize * SLOTS + slot.0) * self.width + c as usize / 64] >> (c % 64) & 1 == 1
    }

    /// Adds `c` to set `slot` of `n`; true when it was not there.
    #[inline]
    pub fn insert(&mut self, n: u32, slot: Slot, c: Choice) -> bool {
        let w = &mut self.words[(n as usize * SLOTS + slot.0) * self.width + c as usize / 64];
        let m = 1u64 << (c % 64);
        let was = *w & m;
        *w |= m;
        was == 0
    }

    #[inline]
    pub fn remove(&mut self, n: u32, slot: Slot, c: Choice) {
        self.words[(n as usize * SLOTS + slot.0) * self.width + c as usize / 64] &= !(1 << (c % 64));
    }

    /// Every set of state `n`, mutable at once (rules that read some and write others).
    #[inline]
    pub fn block_mut(&mut self, n: u32) -> [&mut [u64]; SLOTS] {
        let at = n as usize * SLOTS * self.width;
        let mut sets = self.words[at..at + SLOTS * self.width].chunks_exact_mut(self.width);
        std::array::from_fn(|_| sets.next().expect("SLOTS sets per block"))
    }
}

/// Calls `f` with every member of the set given word by word, lowest first.
#[inline]
pub fn for_each_bit(words: &[u64], mut f: impl FnMut(Choice)) {
    for (i, &w) in words.iter().enumerate() {
        for b in Bits(w) {
            f(i as Choice * 64 + b);
        }
    }
}

/// The lowest member of a set given word by word.
#[inline]
pub fn first_bit(words: impl Iterator<Item = u64>) -> Option<Choice> {
    for (i, w) in words.enumerate() {
        if w != 0 {
            return Some(i as Choice * 64 + w.trailing_zeros());
        }
    }
    None
}

/// The first member at or after `start` of the set given by its `n` words `word(0..n)`,
/// wrapping round to choice 0.
pub fn first_bit_from(n: usize, start: Choice, word: impl Fn(usize) -> u64) -> Option<Choice> {
    if n == 0 {
        return None;
    }
    let start = start as usize % (n * 64);
    let (w0, b0) = (start / 64, start % 64);
    for k in 0..=n {
        let i = (w0 + k) % n;
        let w = match k {
            0 => word(i) & (!0u64 << b0),
            _ if k == n => word(i) & !(!0u64 << b0),
            _ => word(i),
        };
        if w != 0 {
            return Some(i as Choice * 64 + w.trailing_zeros());
        }
    }
    None
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
