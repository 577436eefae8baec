//! Vector clocks: one component per task (a thread's own code, or one handler). Event `a`
//! happens before event `b` iff `b`'s clock has caught up with `a`'s own component.

use smallvec::SmallVec;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VectorClock(SmallVec<[u32; 16]>);

impl VectorClock {
    pub fn new(tasks: usize) -> Self {
        VectorClock(SmallVec::from_elem(0, tasks))
    }

    /// Zero, `tasks` wide, keeping the allocation (clocks of popped events are reused).
    pub fn reset(&mut self, tasks: usize) {
        self.0.clear();
        self.0.resize(tasks, 0);
    }

    #[inline]
    pub fn get(&self, task: usize) -> u32 {
        self.0.get(task).copied().unwrap_or(0)
    }

    #[inline]
    pub fn set(&mut self, task: usize, value: u32) {
        if task >= self.0.len() {
            self.0.resize(task + 1, 0);
        }
        self.0[task] = value;
    }

    /// Pointwise maximum.
    pub fn join(&mut self, other: &VectorClock) {
        if other.0.len() > self.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        join_into(&mut self.0, &other.0);
    }

    /// Pointwise `<=`.
    pub fn leq(&self, other: &VectorClock) -> bool {
        self.0.iter().enumerate().all(|(i, &a)| a <= other.get(i))
    }

    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }
}

/// Pointwise maximum of two clocks as slices, into `a`; components of `b` beyond `a`'s length
/// are ignored (callers size `a` first). The one join loop of the crate: [`VectorClock::join`]
/// and the event-model `dpor` (src/explore/dpor_events.rs) both use it.
#[inline]
pub fn join_into(a: &mut [u32], b: &[u32]) {
    // Branch-free, so the loop vectorizes: the join is the hottest loop of dpor/em-dpor.
    for (a, &b) in a.iter_mut().zip(b) {
        *a = (*a).max(b);
    }
}

/// Whether the event of `task` with clock `a` happens before the event with clock `b`.
#[inline]
pub fn happens_before(a: &VectorClock, task: usize, b: &VectorClock) -> bool {
    let own = a.get(task);
    own > 0 && b.get(task) >= own
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_into_is_pointwise_max_over_the_shorter() {
        let mut a = [1, 5, 0];
        join_into(&mut a, &[3, 2, 7, 9]);
        assert_eq!(a, [3, 5, 7]);
        let mut c = VectorClock::new(2);
        c.set(0, 4);
        let mut d = VectorClock::new(3);
        d.set(2, 1);
        c.join(&d);
        assert_eq!(c.as_slice(), &[4, 0, 1]);
    }
}
