//! tracepor: a model checker for event-driven programs.
//!
//! Data flows one way: [`trace`] parses inputs -> [`model`] emulates the transition system an
//! input defines (state, accesses, happens-before) -> [`explore`] walks its interleavings with
//! one of several strategies -> [`report`] presents what was found. [`check`] puts them
//! together the way the command line does, and [`cli`] is each command once its arguments
//! are parsed (`main.rs` only parses and prints). See docs/architecture.md.

pub mod alloc;
pub mod check;
pub mod cli;
pub mod corpus;
pub mod explore;
pub mod model;
pub mod regress;
pub mod report;
pub mod trace;
pub mod validate;
