//! The location modes a person picks: an app's mode inputs and the mode each routine sets,
//! varied across the configurations at installation (`initial.rs`).
//!
//! **Why.** good-night and bon-voyage each call `setLocationMode(newMode)`; a person installing
//! both picks a mode for each, and on a real hub the two may differ. With one fixed value for
//! every mode input (the first option, `home`) the two writes always agree and no conflict on the
//! mode is ever observed. A routine (`location.helloHome.execute(phrase)`) is the same case one
//! step removed: the person configures, in the SmartThings app, which mode the routine sets, if
//! any; the SmartApp only names the routine.
//!
//! **What varies.** The *factors* are
//! - each single-valued `mode` input of an app that may set the mode (`setLocationMode`,
//!   `location.setMode`, `location.mode = x`, or a routine, by the scan of its source,
//!   [`super::footprint::Scan`]): the location's modes, the input's own default first;
//! - each routine call site (`execute` called on something, by app and line): "leaves the mode
//!   as it is" first, then each of the location's modes. Two apps, or two call sites, may name
//!   different routines, so each site is its own factor (an over-approximation when two name
//!   the same routine: they could then only set the same mode).
//!
//! Read-only mode inputs ("only when the mode is ...", lists) and apps that never set the mode
//! keep their one value: they are the general mechanism's (every input a person picks).
//!
//! **Which combinations.** A covering array of strength two over the factors: for any two
//! factors and any two values of theirs, some row gives them those values. So every two mode
//! writes of different apps (two inputs, an input and a routine, two routines) are made with
//! different values in some configuration, and with equal values in another; and every single
//! value of every factor is present. Row 0 gives every factor its first value (the inputs their
//! default, routines no mode change): what the one fixed configuration gave before. The
//! product of all values would be exact for any app, but it grows as 3^k (button-controller
//! alone has eight mode inputs); a conflict is made of two writes, which strength two covers.
//! The rows are built greedily (each row starts from a pair not yet covered and gives every
//! other factor the value that covers most new pairs), deterministically.
//!
//! **How.** A state carries the number of its row (`SmartState::picks`, 0 before the
//! configurations are chosen and when nothing varies); the configuration `init.k` installs the
//! apps with row `k mod rows`, zipped with the devices' own configurations (`initial.rs`: the
//! system has as many configurations as the larger of the two). The row never changes after
//! the root, so a read of a varied input records no access (the configuration choice writes
//! every object already), and it is part of the state's encoding (the root word), so states of
//! different rows are never taken for one another.
//!
//! **Routines under the study's definition.** IoTCheck's `Phrase.execute` only prints the
//! phrase, and the FSE 2020 manual study labels the apps that run routines (routine-director,
//! hello-home-phrase-director, ...) as readers of the mode. `--routines-keep-mode`
//! ([`super::SmartAppOptions::routines_keep_mode`]) takes that definition: a routine leaves the
//! mode as it is, and its call sites are no factors.

use super::footprint::Walk;
use super::*;

/// One thing a person picks a mode for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Factor {
    /// A single-valued `mode` input of `app` (the location's modes, its default first).
    Input { app: usize, name: String, values: Vec<Text> },
    /// A routine run at `app`'s `line`: no mode change first, then the location's modes.
    Routine { app: usize, line: usize },
}

impl Factor {
    fn count(&self) -> usize {
        match self {
            Factor::Input { values, .. } => values.len(),
            Factor::Routine { .. } => 1 + event_values("mode").len(),
        }
    }
}

/// The factors and the rows of the covering (see the module header).
#[derive(Clone, Debug, Default)]
pub(super) struct Picks {
    pub(super) factors: Vec<Factor>,
    /// Per row, each factor's value number.
    pub(super) rows: Vec<Vec<u8>>,
    /// Per app, its input factors (name, factor), for the interpreter's lookups.
    inputs_of: Vec<Vec<(String, usize)>>,
}

impl Picks {
    /// How many rows (1 when nothing varies).
    pub(super) fn len(&self) -> usize {
        self.rows.len().max(1)
    }

    /// The value of `app`'s input `name` in row `row`, when it is a factor.
    pub(super) fn input(&self, app: usize, name: &str, row: u16) -> Option<Value> {
        let (_, f) = self.inputs_of.get(app)?.iter().find(|(n, _)| n == name)?;
        let Factor::Input { values, .. } = &self.factors[*f] else { return None };
        let v = self.rows.get(row as usize).map_or(0, |r| r[*f] as usize);
        Some(Value::Str(values[v].clone()))
    }

    /// The mode a routine run at `app`'s `line` sets in row `row`: None when it leaves the mode
    /// (or is no factor: routines keep the mode under `--routines-keep-mode`). A site the scan
    /// placed on another line (a call within a condition) is the app's first routine factor.
    pub(super) fn routine(&self, app: usize, line: usize, row: u16) -> Option<Text> {
        let of_app = |f: &Factor| matches!(f, Factor::Routine { app: a, .. } if *a == app);
        let f = (self.factors.iter().position(|f| *f == Factor::Routine { app, line }))
            .or_else(|| self.factors.iter().position(of_app))?;
        let v = self.rows.get(row as usize).map_or(0, |r| r[f] as usize);
        (v > 0).then(|| Text::Static(event_values("mode")[v - 1]))
    }

    /// What row `row` picks, `app.input=value` and `app:line routine=value`, for reports.
    pub(super) fn describe(&self, row: u16, app_name: impl Fn(usize) -> String) -> Vec<String> {
        let Some(r) = self.rows.get(row as usize) else { return Vec::new() };
        self.factors
            .iter()
            .zip(r)
            .map(|(f, &v)| match f {
                Factor::Input { app, name, values } => format!("{}.{name}={}", app_name(*app), values[v as usize]),
                Factor::Routine { app, line } => {
                    let mode = if v == 0 { "no change" } else { event_values("mode")[v as usize - 1] };
                    format!("{} routine at line {line} sets mode {mode}", app_name(*app))
                }
            })
            .collect()
    }
}

impl SmartAppModel {
    /// The factors of this system's apps and their covering (see the module header).
    pub(super) fn mode_picks(&self) -> Picks {
        let mut factors = Vec::new();
        for (a, app) in self.apps.iter().enumerate() {
            let sc = footprint::scan(&app.script);
            let lines = if self.opts.routines_keep_mode { Vec::new() } else { routine_sites(&app.script) };
            // Only an app that sets the mode itself may write an input's value there (a routine
            // is named by a phrase, not a mode), and only the inputs its writes may take.
            let written = if sc.sets_mode { written_inputs(app) } else { Vec::new() };
            for name in &written {
                // The input's own value first (its default, or `home`), then the other modes.
                let first = app.settings.get(name).map(Value::text).unwrap_or_default();
                let mut values: Vec<Text> = Vec::new();
                if !first.is_empty() && first != "null" {
                    values.push(first.into());
                }
                for m in event_values("mode") {
                    if !values.iter().any(|v| **v == **m) {
                        values.push(Text::Static(m));
                    }
                }
                factors.push(Factor::Input { app: a, name: name.clone(), values });
            }
            for line in lines {
                factors.push(Factor::Routine { app: a, line });
            }
        }
        let counts: Vec<usize> = factors.iter().map(Factor::count).collect();
        let rows = covering(&counts);
        let mut inputs_of = vec![Vec::new(); self.apps.len()];
        for (i, f) in factors.iter().enumerate() {
            if let Factor::Input { app, name, .. } = f {
                inputs_of[*app].push((name.clone(), i));
            }
        }
        Picks { factors, rows, inputs_of }
    }
}

/// The routines of a location: SmartThings' four default routines (IoTCheck's `Phrase` class
/// lists the same), what `location.helloHome.getPhrases()` gives (each `[id:, label:]`).
pub(super) const ROUTINES: [&str; 4] = ["Good Night!", "Good Morning!", "Goodbye!", "I'm Back!"];

/// What of a script names the location's routines: locals assigned from `getPhrases()` and
/// methods that call it (`def phrases = location.helloHome?.getPhrases()*.label`,
/// `private listPhrases() { location.helloHome.getPhrases().label }`), by name.
pub(super) struct RoutineLists {
    vars: Vec<String>,
    methods: Vec<String>,
}

impl RoutineLists {
    pub(super) fn of(script: &Script) -> RoutineLists {
        struct Defs<'a>(&'a RoutineLists, Vec<String>);
        impl footprint::Walk for Defs<'_> {
            fn expr(&mut self, e: &Expr) {
                self.children(e)
            }
            fn stmt(&mut self, st: &Stmt) {
                if let Stmt::Def(n, Some(e), _) = st {
                    if self.0.names(e) {
                        self.1.push(n.to_string());
                    }
                }
                footprint::walk_stmt(self, st)
            }
        }
        let none = RoutineLists { vars: Vec::new(), methods: Vec::new() };
        let methods = script.methods.iter().filter(|m| m.body.iter().any(|st| none.in_stmt(st))).map(|m| m.name.clone());
        let mut lists = RoutineLists { vars: Vec::new(), methods: methods.collect() };
        let mut d = Defs(&lists, Vec::new());
        d.stmts(&script.top);
        for m in &script.methods {
            d.stmts(&m.body);
        }
        lists.vars = d.1;
        lists
    }

    fn in_stmt(&self, st: &Stmt) -> bool {
        struct Finds<'a>(&'a RoutineLists, bool);
        impl footprint::Walk for Finds<'_> {
            fn expr(&mut self, e: &Expr) {
                self.1 |= match e {
                    Expr::Call { name, target, .. } => {
                        name == "getPhrases" || (target.is_none() && self.0.methods.contains(name))
                    }
                    Expr::Var(n) => self.0.vars.iter().any(|v| v == n),
                    _ => false,
                };
                self.children(e)
            }
        }
        let mut f = Finds(self, false);
        f.stmt(st);
        f.1
    }

    /// Whether `e` names the location's routines (an input's `options`).
    pub(super) fn names(&self, e: &Expr) -> bool {
        self.in_stmt(&Stmt::Expr(e.clone(), 0))
    }
}

/// The mode inputs whose value `app` may write as the mode: the one a write names
/// (`setLocationMode(newMode)`, `location.setMode(newMode)`, `location.mode = newMode`, with
/// `newMode` no local, parameter or closure parameter of the method it is in), and every mode
/// input of the app when the value of some write is computed otherwise (`changeMode(onMode)`
/// then `setLocationMode(mode)` in it), or when the app calls a method by a computed name.
fn written_inputs(app: &App) -> Vec<String> {
    struct Writes {
        /// The app's device inputs.
        devices: Vec<String>,
        /// Names bound in the method walked: what a bare name there may be other than an input.
        locals: Vec<String>,
        named: Vec<String>,
        any: bool,
    }
    impl Writes {
        fn value(&mut self, v: Option<&Expr>) {
            match v {
                Some(Expr::Var(n)) if !self.locals.iter().any(|l| l == n) => self.named.push(n.to_string()),
                _ => self.any = true,
            }
        }
    }
    impl footprint::Walk for Writes {
        fn expr(&mut self, e: &Expr) {
            match e {
                Expr::Call { name, args, .. } if name == "setLocationMode" || name == "setMode" => {
                    self.value(args.first().map(|a| a.value()))
                }
                // A computed command of a device input (`completionSwitch."${command}"()`) sets
                // no mode; any other call by a computed name may.
                Expr::Call { name, target, .. } if name == groovy::DYNAMIC => {
                    let device = |t: &Expr| matches!(t, Expr::Var(n) if self.devices.iter().any(|d| d == n));
                    self.any |= !target.as_deref().is_some_and(device);
                }
                Expr::Assign { target, value, .. } if footprint::names_location_mode(target) => {
                    self.value(Some(value))
                }
                _ => {}
            }
            self.children(e)
        }
    }
    /// Every name a method binds: parameters, `def`s, loop, catch and closure variables.
    struct Bound(Vec<String>);
    impl footprint::Walk for Bound {
        fn expr(&mut self, e: &Expr) {
            if let Expr::Closure(c) = e {
                self.0.extend(c.0.iter().map(|n| n.to_string()));
                self.0.push("it".into());
            }
            self.children(e)
        }
        fn stmt(&mut self, st: &Stmt) {
            match st {
                Stmt::Def(n, _, _) | Stmt::ForIn(n, _, _) => self.0.push(n.to_string()),
                Stmt::Try(_, catches, _) => self.0.extend(catches.iter().map(|c| c.0.to_string())),
                _ => {}
            }
            footprint::walk_stmt(self, st)
        }
    }
    let devices = app.settings.iter().filter(|(_, v)| matches!(v, Value::Dev(_))).map(|(n, _)| n.clone()).collect();
    let mut w = Writes { devices, locals: Vec::new(), named: Vec::new(), any: false };
    w.stmts(&app.script.top);
    for m in &app.script.methods {
        let mut b = Bound(m.params.iter().map(|p| p.to_string()).collect());
        b.stmts(&m.body);
        w.locals = b.0;
        w.stmts(&m.body);
    }
    let ours = |n: &String| w.any || w.named.contains(n);
    app.mode_inputs.iter().filter(|n| ours(n)).cloned().collect()
}

/// The lines of the routine call sites of a script (`execute` called on a value, as
/// `location.helloHome?.execute(phrase)`), each once, as the interpreter's line is there (that of
/// the statement running).
pub(super) fn routine_sites(script: &Script) -> Vec<usize> {
    struct Sites {
        line: usize,
        found: Vec<usize>,
    }
    impl footprint::Walk for Sites {
        fn expr(&mut self, e: &Expr) {
            if let Expr::Call { target: Some(_), name, .. } = e {
                if name == "execute" && !self.found.contains(&self.line) {
                    self.found.push(self.line);
                }
            }
            self.children(e)
        }
        fn stmt(&mut self, st: &Stmt) {
            if let Stmt::Expr(_, line) | Stmt::Def(_, _, line) = st {
                self.line = *line;
            }
            footprint::walk_stmt(self, st)
        }
    }
    let mut w = Sites { line: 0, found: Vec::new() };
    w.stmts(&script.top);
    for m in &script.methods {
        w.line = m.line;
        w.stmts(&m.body);
    }
    w.found
}

/// A covering array of strength two for factors with `counts` values each: rows of value
/// numbers such that every two factors take every pair of their values in some row; row 0 is
/// all zeros. Empty when there is no factor.
pub(super) fn covering(counts: &[usize]) -> Vec<Vec<u8>> {
    let k = counts.len();
    if k == 0 {
        return Vec::new();
    }
    if k == 1 {
        return (0..counts[0]).map(|v| vec![v as u8]).collect();
    }
    // uncovered[i][j] (i < j): the value pairs of factors i and j not covered yet.
    let mut uncovered: Vec<Vec<Vec<bool>>> = (0..k)
        .map(|i| (0..k).map(|j| if i < j { vec![true; counts[i] * counts[j]] } else { Vec::new() }).collect())
        .collect();
    let mut left: usize = (0..k).flat_map(|i| (i + 1..k).map(move |j| (i, j))).map(|(i, j)| counts[i] * counts[j]).sum();
    let mut rows = Vec::new();
    while left > 0 {
        // The first pair not covered yet fixes two values of the row.
        let (fi, fj, vi, vj) = (0..k)
            .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
            .find_map(|(i, j)| {
                let p = uncovered[i][j].iter().position(|&u| u)?;
                Some((i, j, p / counts[j], p % counts[j]))
            })
            .expect("a pair is left");
        let mut row: Vec<Option<usize>> = vec![None; k];
        row[fi] = Some(vi);
        row[fj] = Some(vj);
        // Every other factor, in order: the value covering most new pairs with those set.
        for f in 0..k {
            if row[f].is_some() {
                continue;
            }
            let gain = |v: usize| {
                (0..k)
                    .filter_map(|g| row[g].map(|w| (g, w)))
                    .filter(|&(g, w)| {
                        let (a, b, x, y) = if g < f { (g, f, w, v) } else { (f, g, v, w) };
                        uncovered[a][b][x * counts[b] + y]
                    })
                    .count()
            };
            let best = (0..counts[f]).max_by_key(|&v| (gain(v), std::cmp::Reverse(v))).unwrap_or(0);
            row[f] = Some(best);
        }
        let row: Vec<usize> = row.into_iter().map(|v| v.unwrap_or(0)).collect();
        for i in 0..k {
            for j in i + 1..k {
                let cell = &mut uncovered[i][j][row[i] * counts[j] + row[j]];
                if *cell {
                    *cell = false;
                    left -= 1;
                }
            }
        }
        rows.push(row.into_iter().map(|v| v as u8).collect());
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::covering;

    /// Every two factors take every pair of their values in some row, row 0 is all zeros, and
    /// the rows stay few (a product would be 3^k).
    #[test]
    fn covering_has_every_pair() {
        for counts in [vec![3, 3], vec![3, 4], vec![3, 3, 3, 3], vec![4, 3, 3, 4, 3, 3, 3, 3, 3], vec![3; 12]] {
            let rows = covering(&counts);
            assert!(rows[0].iter().all(|&v| v == 0), "{counts:?}: row 0 {:?}", rows[0]);
            for i in 0..counts.len() {
                for j in i + 1..counts.len() {
                    for x in 0..counts[i] {
                        for y in 0..counts[j] {
                            assert!(
                                rows.iter().any(|r| r[i] as usize == x && r[j] as usize == y),
                                "{counts:?}: factors {i}, {j} never take {x}, {y}"
                            );
                        }
                    }
                }
            }
            let max = counts.iter().max().unwrap();
            assert!(rows.len() <= 2 * max * max, "{counts:?}: {} rows", rows.len());
        }
        assert_eq!(covering(&[3]), vec![vec![0], vec![1], vec![2]]);
        assert!(covering(&[]).is_empty());
    }
}
