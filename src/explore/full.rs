//! `full`: stateful exhaustive search. Every enabled choice is taken; a state already stored is
//! not expanded again. On EM traces a state includes what every executed read observed, so
//! paths that saw different values never merge and no outcome is lost. On event models this
//! is the "without DPOR" baseline of Trimananda et al.
//!
//! The depth-first walk finds each error by a long path; once it has finished, a breadth-first
//! pass ([`super::shortest`]) gives each error and deadlock a shortest schedule instead.

use super::{dfs, shortest, Search, Strategy};
use crate::model::Model;

#[derive(Default)]
pub struct Full;

impl<M: Model> Strategy<M> for Full {
    fn name(&self) -> &'static str {
        "full"
    }

    fn run(&mut self, search: &mut Search<'_, M>) {
        dfs::depth_first(search, true);
        shortest::shortest_schedules(search);
    }
}
