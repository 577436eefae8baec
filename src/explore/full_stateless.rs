//! `full-stateless`: every interleaving, no state matching. Exponential; the reference every
//! reduction is checked against on inputs small enough to enumerate. Needs an acyclic state
//! space (EM traces always are; event models under `--bound k`).

use super::{dfs, Search, Strategy};
use crate::model::Model;

#[derive(Default)]
pub struct FullStateless;

impl<M: Model> Strategy<M> for FullStateless {
    fn name(&self) -> &'static str {
        "full-stateless"
    }

    fn run(&mut self, search: &mut Search<'_, M>) {
        dfs::depth_first(search, false);
    }
}
