//! Compact storage of the visited states: a stored state is its canonical encoding
//! ([`Model::encode`]) cut into chunks of [`CHUNK`] words, each chunk interned once for the
//! whole run, so a state costs a word per chunk (states of a home differ from each other in a
//! few attributes: most of their chunks are shared). Matching compares chunk numbers, which is
//! exact: equal numbers, equal chunks, equal encodings, equal states (the encoding is
//! canonical). The search keeps the model's full state only for the states it is about to step
//! from (the top [`FRAMES_KEPT`] frames of the current Explore: its stack is as deep as the
//! search is long), for every [`KEEP_EVERY`]-th state of the first-discovery
//! tree, and for s0; any other state is rebuilt, when Explore-all restarts from it, by
//! replaying the discovery steps from its nearest kept ancestor (fewer than [`KEEP_EVERY`]
//! steps; the model is deterministic, so the replay gives the same state). Nothing the search
//! decides depends on which states are kept, so it explores exactly what it did when it kept
//! them all.
//!
//! [`Model::encode`]: crate::model::Model::encode

use rustc_hash::FxHashMap;

/// The top frames of the current Explore whose full states are kept (a frame below is rebuilt
/// when the search comes back to it).
pub(super) const FRAMES_KEPT: usize = 64;

/// Words per chunk.
pub(super) const CHUNK: usize = 8;

/// One state in this many (by depth in the first-discovery tree) keeps its full state.
pub(super) const KEEP_EVERY: u32 = 8;

/// The interned chunks of every stored encoding.
#[derive(Default)]
pub struct Chunks {
    ids: FxHashMap<[u32; CHUNK], u32>,
}

impl Chunks {
    /// `enc` as chunk numbers into `out`: its length, then a number per chunk (the last padded
    /// with zeros: the length tells the padding from the content). False when some chunk was
    /// never interned: then no stored state has this encoding.
    pub fn lookup(&self, enc: &[u32], out: &mut Vec<u32>) -> bool {
        out.clear();
        out.push(enc.len() as u32);
        for c in enc.chunks(CHUNK) {
            match self.ids.get(&Self::key(c)) {
                Some(&id) => out.push(id),
                None => return false,
            }
        }
        true
    }

    /// `enc` as chunk numbers (see [`Chunks::lookup`]), interning new chunks.
    pub fn store(&mut self, enc: &[u32]) -> Box<[u32]> {
        let mut out = Vec::with_capacity(1 + enc.len().div_ceil(CHUNK));
        out.push(enc.len() as u32);
        for c in enc.chunks(CHUNK) {
            let next = self.ids.len() as u32;
            out.push(*self.ids.entry(Self::key(c)).or_insert(next));
        }
        out.into_boxed_slice()
    }

    /// Distinct chunks so far.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    fn key(c: &[u32]) -> [u32; CHUNK] {
        let mut k = [0u32; CHUNK];
        k[..c.len()].copy_from_slice(c);
        k
    }
}
