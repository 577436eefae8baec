//! The library's unit tests: each checks one internal piece (a set, a clock, a budget, a
//! parser's corner) through the items the library exposes for it. They live here rather than
//! in `#[cfg(test)]` modules beside the code so that `cargo test` compiles the library once, not
//! once more with its tests (docs/testing.md).

mod explore;
