//! Unit tests of `tracepor::explore`: one module per file of src/explore/ that has them.

mod budget;
mod dfs;
mod dpor_handoff;
mod outcomes;
mod sets;
mod shortest;
