//! Regression against expected outcome sets, the way a tool user keeps one: an
//! input's outcome set, written once with `--outcomes`, is kept beside it as its *expected*
//! file; `check --expect FILE` and `regress DIR` run the search again and compare.
//!
//! An outcome set is the canonical lines of [`RunReport::outcome_text`] (em-trace.md
//! "Outcomes" for traces; errors and nothing-enabled states for event models and SmartApps).
//! A search that did not finish cannot pass: what it did not reach is unknown, so equality
//! with the expected set proves nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::check::CheckError;
use crate::explore::StopReason;
use crate::report::RunReport;

/// Exit code of `check --expect` and `regress` when an outcome set differs from the expected
/// one (0 pass, 2 bad input, 3 a limit stopped a search first; README, cli.md).
pub const EXIT_DIFFERS: i32 = 5;

/// How a run compares with its expected outcome set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Finished, and the outcome sets are equal.
    Pass { outcomes: usize },
    /// Finished, and they differ: expected lines not reached, lines reached not expected.
    Differs { missing: Vec<String>, unexpected: Vec<String> },
    /// A limit stopped the search: nothing can be concluded.
    Unfinished { stopped_by: Option<StopReason> },
}

impl Verdict {
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::Pass { .. } => 0,
            Verdict::Differs { .. } => EXIT_DIFFERS,
            Verdict::Unfinished { .. } => 3,
        }
    }

    /// One line, then at most `show` lines of each difference.
    pub fn render(&self, show: usize) -> String {
        match self {
            Verdict::Pass { outcomes: 1 } => "pass: the one expected outcome, no other\n".to_string(),
            Verdict::Pass { outcomes } => format!("pass: the {outcomes} expected outcomes, no other\n"),
            Verdict::Unfinished { stopped_by } => {
                let why = stopped_by.map_or("a limit", StopReason::describe);
                format!("not checked: the search stopped ({why}) before it could reach every outcome\n")
            }
            Verdict::Differs { missing, unexpected } => {
                let mut out = format!(
                    "differs: {} expected not reached, {} reached not expected\n",
                    missing.len(),
                    unexpected.len()
                );
                for (sign, lines) in [("-", missing), ("+", unexpected)] {
                    for l in lines.iter().take(show) {
                        out.push_str(&format!("  {sign} {l}\n"));
                    }
                    if lines.len() > show {
                        out.push_str(&format!("  {sign} ... {} more\n", lines.len() - show));
                    }
                }
                out
            }
        }
    }
}

/// The outcome lines of an expected file: one per line as `--outcomes` writes them; blank
/// lines and lines starting with `#` (comments) are skipped.
pub fn read_expected(path: &Path) -> Result<BTreeSet<String>, CheckError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| CheckError(format!("{}: cannot read: {e}", path.display())))?;
    Ok(parse_expected(&text))
}

/// The outcome lines of an expected file's text, as [`read_expected`] reads them.
pub fn parse_expected(text: &str) -> BTreeSet<String> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect()
}

/// Compares a run with the expected outcome lines.
pub fn judge(report: &RunReport, expected: &BTreeSet<String>) -> Verdict {
    if !report.finished {
        return Verdict::Unfinished { stopped_by: report.stopped_by };
    }
    let found = parse_expected(&report.outcome_text());
    let missing: Vec<String> = expected.difference(&found).cloned().collect();
    let unexpected: Vec<String> = found.difference(expected).cloned().collect();
    if missing.is_empty() && unexpected.is_empty() {
        Verdict::Pass { outcomes: found.len() }
    } else {
        Verdict::Differs { missing, unexpected }
    }
}

/// Where an input's expected outcome set is kept: `FILE.expected` beside an input file
/// (`app.events.expected`), `expected.outcomes` inside a trace folder (beside trace.txt, as
/// fixtures/em keeps them).
pub fn expected_path(input: &Path) -> PathBuf {
    if input.is_dir() {
        input.join("expected.outcomes")
    } else {
        let mut p = input.as_os_str().to_owned();
        p.push(".expected");
        PathBuf::from(p)
    }
}

/// The inputs under `dir` that have an expected file beside them, sorted.
pub fn inputs_with_expectations(dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>, CheckError> {
    let inputs = crate::check::expand_inputs(&[dir.to_path_buf()])?;
    let found: Vec<(PathBuf, PathBuf)> =
        inputs.into_iter().map(|i| (expected_path(&i), i)).filter(|(e, _)| e.is_file()).map(|(e, i)| (i, e)).collect();
    if found.is_empty() {
        return Err(CheckError(format!(
            "{}: no input here has an expected outcome file (FILE.expected beside an input file, expected.outcomes in a trace folder)",
            dir.display()
        )));
    }
    Ok(found)
}

/// One input's result in a regression run: its verdict, or why it could not be run.
pub struct Case {
    pub input: String,
    pub result: Result<Verdict, String>,
    pub time: Duration,
}

/// The exit code of a regression run: a difference first, then an input that could not be
/// run, then a search a limit stopped; 0 when every input passed.
pub fn exit_code(cases: &[Case]) -> i32 {
    let code = |c: &Case| match &c.result {
        Ok(v) => v.exit_code(),
        Err(_) => 2,
    };
    [EXIT_DIFFERS, 2, 3].into_iter().find(|&x| cases.iter().any(|c| code(c) == x)).unwrap_or(0)
}

/// JUnit XML for a CI system: one test case per input, a failure for a difference, an error
/// for an input that did not load or a search that did not finish.
pub fn junit(suite_name: &str, cases: &[Case]) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new(suite_name);
    for c in cases {
        let status = match &c.result {
            Ok(Verdict::Pass { .. }) => TestCaseStatus::success(),
            Ok(v @ Verdict::Differs { .. }) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message("outcome set differs from the expected one").set_description(v.render(20));
                s
            }
            Ok(v @ Verdict::Unfinished { .. }) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message("search did not finish").set_description(v.render(0));
                s
            }
            Err(msg) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message("input could not be run").set_description(msg.as_str());
                s
            }
        };
        let mut case = TestCase::new(c.input.as_str(), status);
        case.set_classname("tracepor.regress").set_time(c.time);
        suite.add_test_case(case);
    }
    let mut report = Report::new("tracepor");
    report.add_test_suite(suite);
    report.to_string().unwrap_or_default()
}
