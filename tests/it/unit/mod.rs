//! The library's unit tests: each checks one internal piece (a set, a clock, a budget, a
//! parser's corner) through the items the library exposes for it. They live here rather than
//! in `#[cfg(test)]` modules beside the code so that `cargo test` compiles the library once, not
//! once more with its tests (docs/testing.md).

mod explore;

mod cli_args;
mod corpus;
mod corpus_fse;
mod model_clock;
mod model_events;
mod model_smartapp_choices;
mod model_smartapp_devices;
mod model_smartapp_physical;
mod model_smartapp_self_keys;
mod model_smartapp_value;
mod regress;
mod trace_applist;
mod trace_home;
mod trace_properties;
mod validate;
