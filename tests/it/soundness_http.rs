//! The differential soundness suite (tests/it/soundness.rs's `check_generated_seeds`: every
//! strategy registered for SmartApps against the exhaustive search, findings equal) on HTTP
//! requests with a response closure (src/model/smartapp/http.rs): `gen_http_system`'s apps
//! send `httpGet`/`httpPost`/`httpPostJson` from handlers and from a scheduled method, and
//! their closures branch on the server's answer (literals, a status threshold, which is not varied, a `switch`, two
//! fields) to command a shared switch and lock or to keep a field in `state` another handler
//! reads; the server's answer is changed by the environment's `server.` events.
//!
//! Runs are budgeted by transitions (the strategies) and states (the baseline), never by time.
//! `TRACEPOR_HUB_SEEDS=n` sets the seeds (24 at the CI size, 4 at the quick size).
//!
//! Shown able to fail, with two bugs planted one at a time:
//! - the server's slot left out of the static footprints (`AppReach` in
//!   src/model/smartapp/footprint.rs without the app's server slots): `dpor` and `dpor-sleep`
//!   under `--bound 1` and `--conflicts --bound 1` lost outcomes (the request and the
//!   server's event taken for independent), 8 unsound runs on seeds 5 and 7;
//! - the request's read of the slot left unrecorded (no `touch` in `Ctx::http_request`):
//!   `monitors`' memo check stopped the run ("memo hit to another state").

use tracepor::model::ConflictMode;

use crate::common::gen_http::gen_http_system;
use crate::soundness::{check_generated_seeds, smartapp_options};
use crate::soundness_hub::{reach, seeds};

/// With and without conflicts, under a bound and with a conflict ending its path.
const HTTP_OPTIONS: [(&str, tracepor::model::smartapp::SmartAppOptions); 5] = [
    ("", smartapp_options(false, None, ConflictMode::Observe, None)),
    ("--conflicts", smartapp_options(true, None, ConflictMode::Observe, None)),
    ("--conflicts --conflict-mode end", smartapp_options(true, None, ConflictMode::End, None)),
    ("--bound 1", smartapp_options(false, Some(1), ConflictMode::Observe, None)),
    ("--conflicts --bound 1", smartapp_options(true, Some(1), ConflictMode::Observe, None)),
];

/// Every strategy against the exhaustive search on generated systems of HTTP requests.
#[test]
fn every_strategy_reaches_the_exhaustive_findings_on_http_responses() {
    let (with_servers, _) = reach("http", gen_http_system, HTTP_OPTIONS[1].1, "server.", None);
    let n = seeds() as usize;
    assert!(with_servers * 4 >= n * 3, "only {with_servers} of {n} systems have a server event");
    let (_, finished, rich) = check_generated_seeds("http", gen_http_system, &HTTP_OPTIONS, seeds());
    assert!(rich * 3 >= finished, "only {rich} of {finished} http variants have more than one finding");
}
