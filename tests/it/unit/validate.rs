//! Unit tests of src/validate.rs: the checks of option values (`--time`, `--threads`) and of
//! output paths.

use tracepor::validate::{distinct_outputs, seconds, threads};

#[test]
fn seconds_takes_what_a_duration_holds() {
    for ok in ["0.5", "15", "1e9", "1e18", " 3 ", "1e-9"] {
        assert!(seconds(ok).is_ok(), "{ok}");
    }
    for bad in ["0", "-1", "NaN", "inf", "-inf", "1e20", "99999999999999999999", "1e300", "1e-300", "", "5s"] {
        let e = seconds(bad).expect_err(bad);
        assert!(e.contains(&format!("`{bad}`")), "{bad}: {e}");
    }
}

#[test]
fn outputs_must_differ() {
    use std::path::Path;
    let (a, b) = (Path::new("r.html"), Path::new("r.csv"));
    assert!(distinct_outputs(&[("--html", Some(a)), ("--csv", Some(b)), ("--svg", None)]).is_ok());
    let e = distinct_outputs(&[("--csv", Some(a)), ("--svg", None), ("--html", Some(a))]).unwrap_err();
    assert!(e.0.contains("--csv and --html both name r.html"), "{}", e.0);
    assert!(distinct_outputs(&[("--html", Some(Path::new("-")))]).is_err());
    // `-` is standard output, not a file two options could share.
    assert!(distinct_outputs(&[("--outcomes", Some(Path::new("-"))), ("--dot", Some(Path::new("-")))]).is_ok());
}

#[test]
fn threads_are_capped() {
    assert_eq!(threads("1"), Ok(1));
    assert_eq!(threads("256"), Ok(256));
    for bad in ["0", "257", "100000", "-1", "two", "99999999999999999999999"] {
        assert!(threads(bad).is_err(), "{bad}");
    }
}
