//! The `tracepor` command line (shared/spec/cli.md): parses the arguments, hands them to
//! [`tracepor::cli::run`] and prints a refusal; everything else lives in the library.

use std::process::ExitCode;

use clap::Parser;

use tracepor::cli::{self, Cli, Fail};

// Counts live heap bytes: what --max-memory limits and reports show.
#[global_allocator]
static ALLOC: tracepor::alloc::Counting = tracepor::alloc::Counting;

/// Output piped into a reader that stops early (`| head`) ends the process quietly, as other
/// command-line tools do, instead of a panic on the failed write.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: restores the default disposition of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() -> ExitCode {
    default_sigpipe();
    // A script that asked for JSON reads stdout: its refusals come there too, as JSON (and on
    // stderr as text, for a person watching).
    let json = std::env::args_os().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            if json && e.use_stderr() {
                let first = e.to_string().lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
                println!("{}", cli::error_json(&first));
            }
            return ExitCode::from(code);
        }
    };
    match cli::run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(Fail(msg)) => {
            eprintln!("tracepor: {msg}");
            if json {
                println!("{}", cli::error_json(&msg));
            }
            ExitCode::from(2)
        }
    }
}
