//! A configuration stored as a few words: its parts hash-consed (`explore/monitors.rs`).
//!
//! A [`SmartState`] is a fixed list of **parts**: one per attribute slot, the location mode, one
//! per app (its whole `state` map), the conflict ghosts, the fire counts and the root flag. Each
//! part's distinct values are interned once per run, by the part's canonical encoding (the words
//! `encode` writes for it), so a state is the list of its parts' numbers, [`Packer::width`] words
//! (about 30 on the homes, against a few hundred words of encoding and 3-5 KB of interpreter
//! values). The parts' numbers are also the model's object numbers (`object_name`: slot i, then
//! the mode, then each app's state), which the static footprints (footprint.rs) are written in.
//!
//! **Exact.** Two states pack to the same words iff every part has the same encoding, iff (the
//! parts' encodings being self-delimiting and in a fixed order) the states have the same
//! encoding, the identity every stateful strategy already matches states by. (Packing also
//! keeps the ghosts, fire counts and root flag where `encode` leaves them out: they are then
//! constant, so it separates nothing more.) Unpacking gives back, part by part, a value with the
//! part's encoding: a state with the same encoding as the one packed, which the search may take
//! for it, as it already takes the first state stored with an encoding for every later one.

use super::*;

/// The part holding a part kind's values: interned by encoding, numbered from 0.
struct Table<T> {
    ids: FxHashMap<Box<[u32]>, u32>,
    values: Vec<T>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { ids: FxHashMap::default(), values: Vec::new() }
    }
}

/// What a part is encoded as (the words `Model::encode` writes for it).
trait Part: Clone {
    fn encode(&self, out: &mut Vec<u32>);
    /// Whether `other` has this part's encoding, known cheaply (false: unknown, encode and look).
    fn same(&self, other: &Self) -> bool;
}

impl Part for Value {
    fn encode(&self, out: &mut Vec<u32>) {
        encode_value(self, out);
    }
    fn same(&self, other: &Value) -> bool {
        same_value(self, other)
    }
}

impl Part for Text {
    fn encode(&self, out: &mut Vec<u32>) {
        encode_str(self, 4, out);
    }
    fn same(&self, other: &Text) -> bool {
        **self == **other
    }
}

impl Part for Vec<(Text, Value)> {
    fn encode(&self, out: &mut Vec<u32>) {
        out.push(self.len() as u32);
        for (k, v) in self {
            encode_str(k, 4, out);
            encode_value(v, out);
        }
    }
    fn same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|((k, v), (l, w))| **k == **l && same_value(v, w))
    }
}

impl Part for Vec<(u8, Value)> {
    fn encode(&self, out: &mut Vec<u32>) {
        out.push(self.len() as u32);
        for (w, v) in self {
            out.push(*w as u32);
            encode_value(v, out);
        }
    }
    fn same(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|((a, v), (b, w))| a == b && same_value(v, w))
    }
}

impl Part for Vec<u32> {
    fn encode(&self, out: &mut Vec<u32>) {
        out.push(self.len() as u32);
        out.extend(self);
    }
    fn same(&self, other: &Self) -> bool {
        self == other
    }
}

/// Whether two values surely have one encoding: equal scalars and texts, or the same shared
/// list, map or closure. Conservative (a copied list is not recognised): a miss is only slower.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Dec(x), Value::Dec(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => **x == **y,
        (Value::Dev(x), Value::Dev(y)) => x == y,
        (Value::Obj(x), Value::Obj(y)) => x == y,
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Arc::ptr_eq(x, y),
        (Value::Closure(x), Value::Closure(y)) => Arc::ptr_eq(x, y),
        _ => false,
    }
}

impl<T: Part> Table<T> {
    /// The number of `v`, reading only (None: not interned yet).
    fn find(&self, v: &T, scratch: &mut Vec<u32>) -> Option<u32> {
        scratch.clear();
        v.encode(scratch);
        self.ids.get(scratch.as_slice()).copied()
    }

    fn intern(&mut self, v: &T, scratch: &mut Vec<u32>) -> u32 {
        scratch.clear();
        v.encode(scratch);
        if let Some(&id) = self.ids.get(scratch.as_slice()) {
            return id;
        }
        let id = self.values.len() as u32;
        self.ids.insert(scratch.as_slice().into(), id);
        self.values.push(v.clone());
        id
    }

    /// The number of `v` given that `like`, numbered `like_id`, may be the same part.
    fn find_like(&self, v: &T, like: &T, like_id: u32, scratch: &mut Vec<u32>) -> Option<u32> {
        if v.same(like) {
            Some(like_id)
        } else {
            self.find(v, scratch)
        }
    }
}

/// The interned parts of one run's states (see the module header).
#[derive(Default)]
pub struct Packer {
    attrs: Vec<Table<Value>>,
    mode: Table<Text>,
    states: Vec<Table<Vec<(Text, Value)>>>,
    writers: Table<Vec<(u8, Value)>>,
    fired: Table<Vec<u32>>,
}

impl SmartAppModel {
    /// An empty [`Packer`] for this model's states.
    pub fn packer(&self) -> Packer {
        Packer {
            attrs: (0..self.slots.len()).map(|_| Table::default()).collect(),
            states: (0..self.apps.len()).map(|_| Table::default()).collect(),
            ..Packer::default()
        }
    }
}

impl SmartAppModel {
    /// [`Model::enabled`] of the state packed as `words`, without unpacking it.
    pub fn enabled_packed(&self, p: &Packer, words: &[u32], out: &mut Vec<Choice>) {
        let n = p.width();
        self.enabled_in(words[n - 1] & 1 != 0, &p.fired.values[words[n - 2] as usize], out);
    }
}

impl Packer {
    /// Words per packed state.
    pub fn width(&self) -> usize {
        self.attrs.len() + 1 + self.states.len() + 3
    }

    /// The parts every firing may depend on besides the objects of its footprint: the ghosts,
    /// the fire counts and the root flag with the row of picks (the last three words).
    pub fn always(&self) -> std::ops::Range<usize> {
        self.width() - 3..self.width()
    }

    /// Distinct part values interned, over every part.
    pub fn parts(&self) -> usize {
        self.attrs.iter().map(|t| t.values.len()).sum::<usize>()
            + self.mode.values.len()
            + self.states.iter().map(|t| t.values.len()).sum::<usize>()
            + self.writers.values.len()
            + self.fired.values.len()
    }

    /// Packs `s` into `out` (cleared first), interning its new parts.
    pub fn pack(&mut self, s: &SmartState, out: &mut Vec<u32>) {
        let mut scratch = Vec::new();
        out.clear();
        for (t, v) in self.attrs.iter_mut().zip(&s.attrs) {
            out.push(t.intern(v, &mut scratch));
        }
        out.push(self.mode.intern(&s.mode, &mut scratch));
        for (t, v) in self.states.iter_mut().zip(&s.states) {
            out.push(t.intern(v, &mut scratch));
        }
        out.push(self.writers.intern(&s.writers, &mut scratch));
        out.push(self.fired.intern(&s.fired, &mut scratch));
        out.push(s.root_word());
    }

    /// Packs `s` reading only, where `like` (packed as `like_words`) is a state it may share
    /// most parts with (its predecessor); false when a part of `s` is not interned yet (then
    /// `s` was never packed: it is new).
    pub fn find(&self, s: &SmartState, like: &SmartState, like_words: &[u32], out: &mut Vec<u32>) -> bool {
        let mut scratch = Vec::new();
        out.clear();
        let mut w = like_words.iter().copied();
        let mut next = || w.next().unwrap_or(u32::MAX);
        for ((t, v), l) in self.attrs.iter().zip(&s.attrs).zip(&like.attrs) {
            let Some(id) = t.find_like(v, l, next(), &mut scratch) else { return false };
            out.push(id);
        }
        let Some(id) = self.mode.find_like(&s.mode, &like.mode, next(), &mut scratch) else { return false };
        out.push(id);
        for ((t, v), l) in self.states.iter().zip(&s.states).zip(&like.states) {
            let Some(id) = t.find_like(v, l, next(), &mut scratch) else { return false };
            out.push(id);
        }
        let Some(id) = self.writers.find_like(&s.writers, &like.writers, next(), &mut scratch) else { return false };
        out.push(id);
        let Some(id) = self.fired.find_like(&s.fired, &like.fired, next(), &mut scratch) else { return false };
        out.push(id);
        out.push(s.root_word());
        true
    }

    /// Writes the state packed as `words` into `s` (any state of the model: overwritten part by
    /// part, sharing the interned values).
    pub fn unpack_into(&self, words: &[u32], s: &mut SmartState) {
        let n = self.attrs.len();
        let a = self.states.len();
        s.attrs.resize(n, Value::Null);
        for (i, (t, v)) in self.attrs.iter().zip(s.attrs.iter_mut()).enumerate() {
            v.clone_from(&t.values[words[i] as usize]);
        }
        s.mode = self.mode.values[words[n] as usize].clone();
        s.states.resize_with(a, Vec::new);
        for (i, (t, v)) in self.states.iter().zip(s.states.iter_mut()).enumerate() {
            v.clone_from(&t.values[words[n + 1 + i] as usize]);
        }
        s.writers.clone_from(&self.writers.values[words[n + 1 + a] as usize]);
        s.fired.clone_from(&self.fired.values[words[n + 2 + a] as usize]);
        s.set_root_word(words[n + 3 + a]);
    }
}
