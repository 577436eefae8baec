//! What the race report (docs/races.md "Cost") adds to `optimal`, in-process: per
//! input, `optimal` without the report and with it, alternately, many times in one run; printed:
//! the medians of the search's own time without the report and with it, and of the analysis's
//! time; `analysis / search` (the analysis against the search it follows) and `added` (search
//! and analysis with the report over the search without it, minus 1: what the report adds to
//! `optimal`'s time, the search's keeping a schedule per outcome included). The TACAS apps take
//! well under a millisecond, so one run says little: read the medians over many.
//!
//! Inputs: the five TACAS 2016 apps, and the scaling set (benches/gen_race3.py: a looper, three
//! posters, three racing handlers; benches/gen_mix.py) at TRACEPOR_BENCH_SIZES (comma-separated,
//! default 10000,100000). Runs per input: TRACEPOR_BENCH_RUNS (default 400 on the apps, a tenth
//! of it, at least 5, on the generated traces). Run: `cargo bench --bench races [-- FILTER]`.

use std::path::{Path, PathBuf};

use tracepor::check::Check;
use tracepor::explore::Limits;
use tracepor::model::{self, LoadOptions, Loaded};

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let runs: usize = std::env::var("TRACEPOR_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(400);
    let sizes: Vec<usize> = std::env::var("TRACEPOR_BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tacas = here.join("../shared/traces/em-explorer/tacas-2016");
    assert!(tacas.is_dir(), "EM-Explorer's traces are not at {}: put shared/ beside this project", tacas.display());
    let mut inputs: Vec<(String, PathBuf, usize)> =
        ["music", "aarddict", "charachter-recognition", "mytracks", "remind-me"]
            .iter()
            .map(|a| (a.to_string(), tacas.join(a), runs))
            .collect();
    let tmp = std::env::temp_dir().join(format!("tracepor-bench-races-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temporary directory");
    for gen in ["gen_race3", "gen_mix"] {
        for &n in &sizes {
            let name = format!("{gen} {n}");
            if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
                continue;
            }
            let file = tmp.join(format!("{gen}-{n}.txt"));
            let out = std::process::Command::new("python3")
                .arg(here.join(format!("benches/{gen}.py")))
                .arg(n.to_string())
                .output()
                .expect("python3 runs the generators");
            std::fs::write(&file, out.stdout).expect("generated trace written");
            inputs.push((name, file, (runs / 10).max(5)));
        }
    }
    println!(
        "| input | runs | search s, no report (median) | search s, with it (median) | analysis s (median) | analysis / search | added | race pairs |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, path, runs) in inputs {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let Ok(Loaded::Em(m)) = model::load(&path, LoadOptions::default()) else { panic!("cannot load {name}") };
        let limits = Limits { time: Some(std::time::Duration::from_secs(120)), ..Limits::default() };
        let run = |races: bool| {
            Check::new(&m).strategy("optimal").expect("optimal").limits(limits.clone()).races(races).run()
        };
        let (mut plain_s, mut with_s, mut analysis) = (Vec::new(), Vec::new(), Vec::new());
        let mut pairs = 0;
        for _ in 0..runs {
            let plain = run(false);
            assert!(plain.finished, "{name}: optimal did not finish");
            plain_s.push(plain.time_s);
            let with = run(true);
            let r = with.races.as_ref().expect("race report");
            // `None` is an analysis a limit stopped: a table row would then have no count.
            pairs = r.pairs.expect("the race analysis finished");
            with_s.push(with.time_s);
            analysis.push(r.time_s);
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (p, w, a) = (median(&mut plain_s), median(&mut with_s), median(&mut analysis));
        // `analysis / search`: the analysis against the search it follows; `added`: what a
        // `check` with the report spends, search and analysis, over one without, minus 1 (the
        // search keeps a schedule per outcome and its `hb0` for the report).
        println!("| {name} | {runs} | {p:.6} | {w:.6} | {a:.6} | {:.3} | {:.3} | {pairs} |", a / w, (w + a) / p - 1.0);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
