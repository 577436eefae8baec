//! Unit tests of src/regress.rs: expected-outcome files, the exit code of a run of cases and
//! its JUnit report.

use std::time::Duration;

use tracepor::explore::StopReason;
use tracepor::regress::{exit_code, junit, parse_expected, Case, Verdict, EXIT_DIFFERS};

#[test]
fn expected_files_skip_comments_and_blank_lines() {
    let set = parse_expected("# kept by hand\n\nrf 3<-0 | final 4 | stuck\n  rf | final | stuck 5  \n");
    assert_eq!(set.into_iter().collect::<Vec<_>>(), ["rf 3<-0 | final 4 | stuck", "rf | final | stuck 5"]);
}

#[test]
fn a_difference_outranks_a_bad_input_and_a_limit() {
    let case = |r: Result<Verdict, String>| Case { input: "x".into(), result: r, time: Duration::ZERO };
    let pass = || case(Ok(Verdict::Pass { outcomes: 1 }));
    let unfinished = || case(Ok(Verdict::Unfinished { stopped_by: Some(StopReason::TimeLimit) }));
    let differs = || case(Ok(Verdict::Differs { missing: vec!["a".into()], unexpected: vec![] }));
    assert_eq!(exit_code(&[pass(), pass()]), 0);
    assert_eq!(exit_code(&[pass(), unfinished()]), 3);
    assert_eq!(exit_code(&[unfinished(), case(Err("bad".into()))]), 2);
    assert_eq!(exit_code(&[case(Err("bad".into())), differs(), unfinished()]), EXIT_DIFFERS);
}

#[test]
fn junit_marks_failures_and_escapes_text() {
    let cases = [
        Case { input: "a<b>.events".into(), result: Ok(Verdict::Pass { outcomes: 2 }), time: Duration::ZERO },
        Case {
            input: "c.events".into(),
            result: Ok(Verdict::Differs { missing: vec!["error x & y".into()], unexpected: vec![] }),
            time: Duration::ZERO,
        },
    ];
    let xml = junit("fixtures", &cases);
    assert!(xml.contains("tests=\"2\"") && xml.contains("failures=\"1\""), "{xml}");
    assert!(xml.contains("a&lt;b&gt;.events") && xml.contains("error x &amp; y"), "{xml}");
}
