//! The integration tests, as one test binary: each file here is a module, and `common` and
//! `events_common` are the helpers they share. One binary links the library once, where a
//! binary per file linked it once per file (most of a clean `cargo test`'s time and of
//! `target/`'s size: docs/testing.md).
//!
//! The modules share one process and run on the harness's threads: a test writes its files
//! under a folder named after its module or its own name and the process id, changes no
//! environment variable, current directory or other process-wide state, and measures memory or
//! signals only on the `tracepor` processes it starts. `cargo test --test it MODULE::` runs one
//! module (e.g. `cargo test --test it soundness::`).

mod common;
mod events_common;

mod abc_log;
mod api;
mod cli;
mod cli_diagnostics;
mod cli_outputs;
mod cli_refusals;
mod configured_homes;
mod conflict_scope;
mod corpus;
mod corpus_dependence;
mod corpus_state_keys;
mod corpus_study;
mod dpor_benchmarks;
mod em_dpor_sleep;
mod em_semantics;
mod events_dpor;
mod events_dpor_bounded;
mod events_model;
mod events_parse;
mod events_soundness;
mod events_stateful_dpor_em;
mod exhaustive_agree;
mod fixtures;
mod fuzz_regressions;
mod homes;
mod html_page;
mod http_responses;
mod input_errors;
mod layering;
mod limits_named;
mod limits_run;
mod location_mode;
mod memory;
mod optimal;
mod parallel;
mod parse_errors;
mod physical_reads;
mod properties_soundness;
mod races;
mod regress;
mod replay_recorded;
mod report_names;
mod smartapp_dpor;
mod smartapp_hub;
mod smartapp_lights;
mod smartapp_model;
mod smartapp_pairs;
mod smartapp_parse;
mod soundness;
mod soundness_choices;
mod soundness_computed_names;
mod soundness_homes;
mod soundness_http;
mod soundness_hub;
mod soundness_pairs;
mod soundness_slice;
mod threads_homes;
mod unit;
