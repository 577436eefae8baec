//! Unit tests of src/cli/args.rs: every command's help fits its width, has an example and
//! offers only what the command takes.

use clap::CommandFactory;
use tracepor::cli::Cli;

/// Every command's help (`-h` and `--help`), as clap prints it at `width` columns.
fn helps(width: usize) -> Vec<(String, String)> {
    let top = Cli::command().term_width(width);
    let mut out = vec![("tracepor".to_string(), top.clone().render_long_help().to_string())];
    for sub in top.get_subcommands() {
        let sub = sub.clone().term_width(width);
        out.push((sub.get_name().to_string(), sub.clone().render_help().to_string()));
        out.push((sub.get_name().to_string(), sub.clone().render_long_help().to_string()));
    }
    out
}

#[test]
fn help_fits_the_width_and_every_command_has_an_example() {
    for width in [100, 72] {
        for (name, help) in helps(width) {
            for line in help.lines() {
                assert!(line.chars().count() <= width, "`{name} --help` at {width} columns:\n{line}");
            }
            assert!(help.contains("Example"), "`{name} --help` has no example:\n{help}");
        }
    }
}

/// `check --help` is a page a user reads, not a reference: at most 80 lines on an
/// 80-column terminal, as the binary prints it (the details are in docs/cli.md), every
/// strategy on a line of its own.
#[test]
fn check_help_fits_on_a_page() {
    let shown = Cli::command().term_width(80).try_get_matches_from(["tracepor", "check", "--help"]);
    let check = shown.err().expect("--help prints the help").render().to_string();
    assert!(check.contains("Usage: tracepor check"), "{check}");
    assert!(check.lines().count() <= 80, "`check --help` has {} lines:\n{check}", check.lines().count());
    assert!(check.lines().all(|l| l.chars().count() <= 80), "{check}");
    for e in tracepor::explore::registry::REGISTRY {
        assert!(!e.summary.is_empty(), "{} has no summary", e.name);
        assert!(check.lines().any(|l| l.trim_start().starts_with(e.name)), "{} not listed", e.name);
    }
}

#[test]
fn help_offers_each_command_only_what_it_takes() {
    let helps = helps(100);
    let of = |name: &str| helps.iter().filter(|(n, _)| n == name).map(|(_, h)| h.as_str()).collect::<String>();
    // compare refuses --dot: neither its options nor its strategy list offer it.
    assert!(!of("compare").contains("--dot"), "{}", of("compare"));
    assert!(of("check").contains("--dot"));
    // regress's --outcomes says what regress writes, not compare's files.
    assert!(!of("regress").contains("PATH.<strategy>"), "{}", of("regress"));
    assert!(of("regress").contains("PATH.<input>"));
    assert!(of("compare").contains("PATH.<strategy>"));
}
