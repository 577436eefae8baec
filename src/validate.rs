//! Option values checked before any search: a value the run cannot use, or an option
//! the run would ignore, is refused with one message (the command line exits 2), never met later
//! as a panic or as a search that quietly did something else.
//!
//! The parsers here are given to clap (`value_parser = tracepor::validate::seconds`), so that a
//! bad value is refused with the option's name, as clap refuses the others.

use std::time::Duration;

use crate::check::CheckError;
use crate::explore::registry::Entry;

/// The most worker threads `--threads` takes: more than any machine this runs on has cores, and
/// few enough that starting them cannot exhaust the process's threads.
pub const MAX_THREADS: usize = 256;

/// `--time-limit`: a number of seconds above zero that a [`Duration`] can hold (at least a
/// nanosecond, below 2^64 seconds, about 5.8e11 years). NaN, infinities, negative numbers, zero, `1e20` and
/// `1e-300` are refused.
pub fn seconds(text: &str) -> Result<f64, String> {
    let t: f64 = text.trim().parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !t.is_finite() || t <= 0.0 {
        return Err(format!("`{text}` is not a number of seconds above 0"));
    }
    match Duration::try_from_secs_f64(t) {
        Ok(d) if d.is_zero() => Err(format!("`{text}` seconds is less than a nanosecond")),
        Ok(_) => Ok(t),
        Err(_) => Err(format!("`{text}` seconds is longer than a limit can be (omit the option for no limit)")),
    }
}

/// `--threads`: 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, String> {
    let n: usize = text.trim().parse().map_err(|_| format!("`{text}` is not a whole number of threads"))?;
    if n == 0 || n > MAX_THREADS {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        return Err(format!("`{text}`: from 1 to {MAX_THREADS} threads (this machine has {cores} cores)"));
    }
    Ok(n)
}

/// `--dot PATH` with a strategy that does not record its state graph: refused before the
/// search, which would otherwise run to its end and write nothing.
pub fn check_dot(entry: &Entry) -> Result<(), CheckError> {
    if entry.records_graph {
        return Ok(());
    }
    let those: Vec<&str> =
        crate::explore::registry::REGISTRY.iter().filter(|e| e.records_graph).map(|e| e.name).collect();
    Err(CheckError(format!(
        "--dot applies only to the strategies that record their state graph ({}); strategy `{}` does not",
        those.join(", "),
        entry.name
    )))
}

/// Two options told to write one file (`--html r.html --csv r.html`): refused, since the
/// second would overwrite the first; `--html -` too (a page is a file, not a stream to mix
/// with the report). `-` for standard output is no file.
pub fn distinct_outputs(outputs: &[(&str, Option<&std::path::Path>)]) -> Result<(), CheckError> {
    let given: Vec<(&str, &std::path::Path)> = outputs.iter().filter_map(|(n, p)| Some((*n, (*p)?))).collect();
    for (i, (a, pa)) in given.iter().enumerate() {
        if *a == "--html" && pa.as_os_str() == "-" {
            return Err(CheckError("--html writes a page to a file: give a path, not `-`".into()));
        }
        if pa.as_os_str() == "-" {
            continue;
        }
        if let Some((b, _)) = given[..i].iter().find(|(_, pb)| pb == pa) {
            return Err(CheckError(format!("{b} and {a} both name {}: give each its own file", pa.display())));
        }
    }
    Ok(())
}
