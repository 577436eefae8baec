//! Unit tests of src/explore/races/verdict.rs: outcome texts of the recorded run and of optimal's outcomes parse back.

use tracepor::explore::races::Seen;
use tracepor::explore::{registry, run_search, Limits, Search};
use tracepor::model::em::EmModel;

/// [`Seen::parse`] reads back what [`Seen::outcome_text`] writes, for the recorded run and
/// every outcome `optimal` finds, on every shipped EM trace and fixture; it refuses a text
/// cut short or with a number that is no operation.
#[test]
fn outcome_texts_parse_back() {
    let models = super::shipped_em_models();
    let mut parsed = 0;
    for (d, model) in models {
        let rec = Seen::recorded(&model);
        let text = rec.outcome_text(&model);
        assert!(Seen::parse(&model, &text) == Some(rec), "{}: the recorded run", d.display());
        let cut = text.split(" | stuck").next().unwrap_or("");
        assert!(Seen::parse(&model, cut).is_none(), "{}: cut short", d.display());
        assert!(Seen::parse(&model, &format!("{text} 4000000000")).is_none());
        // `optimal` keeping a schedule per outcome, as `check --races` runs it.
        let mut optimal = registry::lookup("optimal").and_then(|e| e.build::<EmModel>()).expect("optimal");
        let mut search = Search::new(&model, Limits::default());
        search.options.outcome_schedules = true;
        let (_, found, _) = run_search(search, optimal.as_mut());
        for (t, _) in found.witnesses() {
            let seen = Seen::parse(&model, t).unwrap_or_else(|| panic!("{}: {t}", d.display()));
            assert_eq!(seen.outcome_text(&model), t, "{}", d.display());
            parsed += 1;
        }
    }
    assert!(parsed >= 60, "only {parsed} outcomes parsed");
}
