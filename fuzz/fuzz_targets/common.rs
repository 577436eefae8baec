//! What the exploring targets share: the strategies, run with small bounds so that one input
//! costs milliseconds (a hang here means a limit that does not hold, which is a finding).

#![allow(dead_code)]

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tracepor::explore::{self, stats::Limits, Strategies, STRATEGIES};

pub fn limits() -> Limits {
    Limits { time: Some(Duration::from_millis(50)), max_states: Some(200), ..Default::default() }
}

/// Every registered strategy that applies to `M`, one after the other.
pub fn explore_all<M: Strategies>(model: &M) {
    for name in STRATEGIES {
        if let Some(mut s) = M::strategy(name) {
            let _ = explore::run(model, s.as_mut(), limits(), Arc::new(AtomicBool::new(false)));
        }
    }
}
