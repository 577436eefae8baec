//! The emulator's configuration (em-trace.md, "Replay semantics"): one flat buffer per state,
//! laid out once per model, so that copying a state is one allocation and one `memcpy`, state
//! matching hashes a prefix of it, and stateless DPOR undoes a step from a journal of writes
//! instead of keeping a trace-sized state per step.

use super::EmModel;

/// A configuration of the emulator, in one flat buffer so that copying a state is one
/// allocation and one `memcpy`, and its canonical key (state matching) is a prefix of it.
///
/// Layout: a header of region offsets (the same for every state of a model), then the key
/// regions (own positions, handler positions, queue lengths, queue slots, last writes,
/// reads-from), then regions that follow from the key (running handler, notifies, locks,
/// executed bits).
pub struct EmState {
    pub(super) buf: Vec<u32>,
    /// When kept (stateless DPOR, see [`EmState::keep_journal`]): (slot, old value) of every
    /// write, so that a step is undone in place instead of a trace-sized state kept per step.
    pub(super) journal: Option<Vec<(u32, u32)>>,
}

// What a state is: the buffer alone, not its journal.
impl PartialEq for EmState {
    fn eq(&self, other: &Self) -> bool {
        self.buf == other.buf
    }
}
impl Eq for EmState {}
impl std::hash::Hash for EmState {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.buf.hash(h);
    }
}
impl std::fmt::Debug for EmState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmState").field("buf", &self.buf).finish()
    }
}

impl Clone for EmState {
    fn clone(&self) -> Self {
        EmState { buf: self.buf.clone(), journal: None }
    }
    /// Into the buffer already there (a derived `clone_from` would allocate anew; searches
    /// copy a state per step).
    fn clone_from(&mut self, other: &Self) {
        self.buf.clone_from(&other.buf);
    }
}

// Header slots holding region offsets.
pub(super) const OWN: usize = 0; // per thread: own operations executed
pub(super) const HANDLED: usize = 1; // per message: handler operations executed
pub(super) const QLEN: usize = 2; // per thread: queue length
pub(super) const QBUF: usize = 3; // queue slots, front first, per thread at QOFF + t
pub(super) const LAST_WRITE: usize = 4; // per location: index of its last write, 0 when none
pub(super) const RF: usize = 5; // per read slot: index of the write it observed, 0 when none
pub(super) const RUNNING: usize = 6; // per thread: message running + 1, or 0 (also: end of the key)
pub(super) const NOTIFIES: usize = 7; // per thread: pending notifies
pub(super) const LOCKS: usize = 8; // per lock: owner + 1, depth
pub(super) const EXECUTED: usize = 9; // bit per operation
pub(super) const QOFF: usize = 10; // per thread: start of its queue slots

impl EmState {
    /// The state before any step: every region sized for `m`, all zero but the header and the
    /// start of each thread's queue slots.
    pub(super) fn initial(m: &EmModel) -> EmState {
        let nt = m.threads.len();
        let sizes = [
            (OWN, nt),
            (HANDLED, m.handlers.len()),
            (QLEN, nt),
            (QBUF, m.threads.iter().map(|t| t.messages.len()).sum()),
            (LAST_WRITE, m.trace.locations.len()),
            (RF, m.reads as usize),
            (RUNNING, nt),
            (NOTIFIES, nt),
            (LOCKS, 2 * m.locks as usize),
            (EXECUTED, m.trace.ops.len().div_ceil(32)),
        ];
        let header = QOFF + nt;
        let total = header + sizes.iter().map(|(_, n)| n).sum::<usize>();
        let mut buf = vec![0u32; total];
        let mut at = header;
        for (region, n) in sizes {
            buf[region] = at as u32;
            at += n;
        }
        // Each thread's queue holds at most the messages it handles.
        let mut q = 0;
        for (t, th) in m.threads.iter().enumerate() {
            buf[QOFF + t] = q;
            q += th.messages.len() as u32;
        }
        EmState { buf, journal: None }
    }

    /// From now on, records every write so that [`EmState::undo_to`] can take steps back.
    pub fn keep_journal(&mut self) {
        self.journal.get_or_insert_with(Vec::new);
    }
    /// Length of the journal: a mark to undo to.
    pub fn journal_len(&self) -> usize {
        self.journal.as_ref().map_or(0, Vec::len)
    }
    /// Undoes the writes recorded since `mark`, latest first.
    pub fn undo_to(&mut self, mark: usize) {
        let journal = self.journal.as_mut().expect("undo without a journal");
        while journal.len() > mark {
            let (at, old) = journal.pop().expect("longer than mark");
            self.buf[at as usize] = old;
        }
    }
    /// Every write to the buffer goes through here (the journal sees them all).
    #[inline]
    pub(super) fn write(&mut self, at: usize, v: u32) {
        if let Some(j) = &mut self.journal {
            j.push((at as u32, self.buf[at]));
        }
        self.buf[at] = v;
    }
    #[inline]
    pub(super) fn at(&self, region: usize, i: usize) -> usize {
        self.buf[region] as usize + i
    }
    #[inline]
    pub(super) fn get(&self, region: usize, i: usize) -> u32 {
        self.buf[self.at(region, i)]
    }
    #[inline]
    pub(super) fn set(&mut self, region: usize, i: usize, v: u32) {
        let at = self.at(region, i);
        self.write(at, v);
    }
    #[inline]
    pub(super) fn add(&mut self, region: usize, i: usize, d: i32) {
        let at = self.at(region, i);
        self.write(at, self.buf[at].wrapping_add_signed(d));
    }
    pub fn executed(&self, op: u32) -> bool {
        self.get(EXECUTED, op as usize / 32) & (1 << (op % 32)) != 0
    }
    pub(super) fn mark_executed(&mut self, op: u32) {
        let at = self.at(EXECUTED, op as usize / 32);
        self.write(at, self.buf[at] | 1 << (op % 32));
    }
    /// The thread holding lock `lock` (dense id), if any.
    pub fn lock_owner(&self, lock: u32) -> Option<u32> {
        let l = 2 * lock as usize;
        (self.get(LOCKS, l + 1) > 0).then(|| self.get(LOCKS, l) - 1)
    }
    /// The trace index of the last write to `loc` so far, 0 for none.
    pub fn last_write(&self, loc: u32) -> u32 {
        self.get(LAST_WRITE, loc as usize)
    }
    pub fn executed_count(&self) -> usize {
        self.buf[self.buf[EXECUTED] as usize..].iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Messages queued on thread `t`, front first.
    pub fn queue(&self, t: u32) -> &[u32] {
        let from = self.at(QBUF, 0) + self.buf[QOFF + t as usize] as usize;
        &self.buf[from..from + self.get(QLEN, t as usize) as usize]
    }
    pub(super) fn push_queue(&mut self, t: u32, msg: u32) {
        let len = self.get(QLEN, t as usize);
        let at = self.at(QBUF, 0) + self.buf[QOFF + t as usize] as usize + len as usize;
        self.write(at, msg);
        self.set(QLEN, t as usize, len + 1);
    }
    pub(super) fn pop_queue(&mut self, t: u32) {
        let len = self.get(QLEN, t as usize) as usize;
        let from = self.at(QBUF, 0) + self.buf[QOFF + t as usize] as usize;
        if self.journal.is_none() {
            self.buf.copy_within(from + 1..from + len, from);
        } else {
            for i in from..from + len - 1 {
                self.write(i, self.buf[i + 1]);
            }
        }
        // Vacated slots stay zero, so equal queues have equal keys.
        self.write(from + len - 1, 0);
        self.set(QLEN, t as usize, len as u32 - 1);
    }
    /// The canonical key: everything that tells two states apart.
    pub(super) fn key(&self) -> &[u32] {
        &self.buf[self.buf[OWN] as usize..self.buf[RUNNING] as usize]
    }
}
