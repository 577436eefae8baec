//! The values a person picks for an app's inputs: the modes it writes, the mode each routine
//! sets, and every input a branch depends on, varied across the configurations at installation
//! (`initial.rs`).
//!
//! **Why.** good-night and bon-voyage each call `setLocationMode(newMode)`; a person installing
//! both picks a mode for each, and on a real hub the two may differ. With one fixed value for
//! every mode input (the first option, `home`) the two writes always agree and no conflict on the
//! mode is ever observed. A routine (`location.helloHome.execute(phrase)`) is the same case one
//! step removed: the person configures, in the SmartThings app, which mode the routine sets, if
//! any; the SmartApp only names the routine. The other inputs are the same case for branches:
//! humidity-alert turns its switch on `if (currentHumidity >= tooHumid)` and off `if
//! (currentHumidity <= notHumidEnough)`, both thresholds inputs; with one value each (5) only
//! one branch is ever taken. talking-alarm-clock schedules its alarm only when several inputs
//! hold together and runs it only when its optional list of days is left unset.
//!
//! **What varies.** The *factors* are
//! - each single-valued `mode` input of an app that may set the mode (`setLocationMode`,
//!   `location.setMode`, `location.mode = x`, or a routine, by the scan of its source,
//!   [`super::footprint::Scan`]): the location's modes, the input's own default first;
//! - each routine call site (`execute` called on something, by app and line): "leaves the mode
//!   as it is" first, then each of the location's modes. Two apps, or two call sites, may name
//!   different routines, so each site is its own factor (an over-approximation when two name
//!   the same routine: they could then only set the same mode);
//! - each other non-device input a branch may depend on ([`branch_names`]: a name in a
//!   condition, or flowing into one through locals and method parameters), with one value per
//!   way its branches can go ([`person_factors`]: bool both, an enum's literal options, the
//!   intervals the app's numeric event values cut, set and unset when optional), at most
//!   [`MAX_VALUES`]. An input no branch reads adds nothing: its value changes no path (a
//!   command's argument keeps its one value; two apps' arguments differ or not as loaded).
//!
//! **Which combinations.** A covering array of strength two across all factors: for any two
//! factors and any two values of theirs, some row gives them those values, and every factor
//! takes each of its values in some row. So every two mode writes of different apps (two
//! inputs, an input and a routine, two routines) are made with different values in some
//! configuration, and with equal values in another; and a guard on two inputs of one app
//! (talking-alarm-clock's days unset while its mode is set to `away`) holds in some row, as
//! does every pair of a branch's input and another app's write value. A guard on three inputs
//! or more holds in some row only when the greedy rows happen to cover it (a strength of three
//! would be exact for those and multiplies the rows by the largest count): what is not covered
//! is missed, never invented, as every row is a configuration a person can make. Row 0 gives
//! every factor its first value (the loaded values, routines no mode change): what the one
//! fixed configuration gave before. The product of all values would be exact for any app, but
//! it grows as 3^k (button-controller alone has eight mode inputs). The rows are built greedily
//! (each row starts from the first goal not covered yet and gives every other factor the value
//! that covers most new goals), deterministically.
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

/// One thing a person picks a value for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Factor {
    /// An input of `app` a person picks: a single-valued `mode` input the app may write as the
    /// mode (the location's modes, its default first), or an input a branch depends on
    /// ([`person_factors`]); the value loaded first.
    Input { app: usize, name: String, values: Vec<Value> },
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

/// A non-device input of an app as load reads it: what a person may pick for it.
#[derive(Clone, Debug)]
pub(super) struct Choosable {
    pub(super) name: String,
    pub(super) ty: String,
    pub(super) multiple: bool,
    /// `required: false`: it may be left unset.
    pub(super) optional: bool,
    /// Its literal options (an enum's).
    pub(super) options: Vec<String>,
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
        Some(values[v].clone())
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
                Factor::Input { app, name, values } => {
                    format!("{}.{name}={}", app_name(*app), values[v as usize].text())
                }
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
    pub(super) fn person_picks(&self) -> Picks {
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
                let mut values: Vec<Value> = Vec::new();
                if !first.is_empty() && first != "null" {
                    values.push(s(&first));
                }
                for m in event_values("mode") {
                    if !values.iter().any(|v| v.text() == *m) {
                        values.push(Value::Str(Text::Static(m)));
                    }
                }
                factors.push(Factor::Input { app: a, name: name.clone(), values });
            }
            if !self.opts.fixed_inputs {
                factors.extend(person_factors(a, app, &written));
            }
            for line in lines {
                factors.push(Factor::Routine { app: a, line });
            }
        }
        let counts: Vec<usize> = factors.iter().map(Factor::count).collect();
        // Every two factors are paired, of one app or two (see the module header).
        let groups: Vec<usize> = (0..factors.len()).collect();
        let rows = covering(&counts, &groups);
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
        let methods =
            script.methods.iter().filter(|m| m.body.iter().any(|st| none.in_stmt(st))).map(|m| m.name.clone());
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
                Expr::Assign { target, value, .. } if footprint::names_location_mode(target) => self.value(Some(value)),
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

/// At most this many values per input factor (the value loaded first): the rows of a covering
/// of strength two grow with the square of the largest count.
const MAX_VALUES: usize = 3;

/// The factors of `app` (number `a`) other than the mode it writes (`written`): each input a
/// person picks whose value a branch depends on ([`branch_names`]), with the values that lead
/// its branches different ways:
/// - bool: its value, then the other;
/// - single enum with literal options: its value, then the other options (a comparison with a
///   literal tells them apart), then unset when optional;
/// - single mode (read, not written): its value, then the other modes, then unset when optional;
/// - number, decimal: its value, then one value in each other interval the numeric values of
///   the events the app subscribes to cut the line into (`humidity >= tooHumid` with humidity
///   20 or 80: below 20, between, above 80), then unset when optional;
/// - any other optional input (text, time, phone, a list of options or modes): set (its value)
///   and unset, what a test of its presence tells apart.
///
/// Each keeps at most [`MAX_VALUES`].
fn person_factors(a: usize, app: &App, written: &[String]) -> Vec<Factor> {
    let names = branch_names(&app.script);
    let mut points: Vec<f64> = load::subscribe_calls(&app.script)
        .iter()
        .flat_map(|c| event_values(c.event.split('.').next().unwrap_or("")).iter())
        .filter_map(|v| v.parse::<f64>().ok())
        .collect();
    points.sort_by(f64::total_cmp);
    points.dedup();
    let mut out = Vec::new();
    for c in &app.person {
        if !names.contains(&c.name) || written.contains(&c.name) || app.bound.contains(&c.name) {
            continue;
        }
        let Some(current) = app.settings.get(&c.name).cloned() else { continue };
        let mut values = vec![current.clone()];
        let mut add = |v: Value| {
            if !values.iter().any(|x| x.text() == v.text() && (*x == Value::Null) == (v == Value::Null)) {
                values.push(v)
            }
        };
        match (c.ty.as_str(), c.multiple) {
            ("bool" | "boolean", _) => add(Value::Bool(!current.truthy())),
            ("enum", false) => c.options.iter().for_each(|o| add(s(o))),
            ("mode", false) => event_values("mode").iter().for_each(|m| add(s(m))),
            ("number" | "decimal", _) => {
                let here = current.num();
                let mut reps = Vec::new();
                if let (Some(lo), Some(hi)) = (points.first(), points.last()) {
                    reps.push((f64::NEG_INFINITY, *lo, lo - 1.0));
                    reps.extend(points.windows(2).map(|w| (w[0], w[1], ((w[0] + w[1]) / 2.0).floor())));
                    reps.push((*hi, f64::INFINITY, hi + 1.0));
                }
                for (lo, hi, rep) in reps {
                    // An interval the loaded value is in is represented already.
                    if !here.is_some_and(|h| lo < h && h < hi) {
                        add(Value::Int(rep as i64));
                    }
                }
            }
            _ => {}
        }
        if c.optional {
            add(Value::Null);
        }
        values.truncate(MAX_VALUES);
        if values.len() > 1 {
            out.push(Factor::Input { app: a, name: c.name.clone(), values });
        }
    }
    out
}

/// The names a branch of `script` may depend on: every name in a condition (`if`, `while`,
/// `for`, a ternary's, a `switch`'s subject, an operand of `&&`, `||`, `!`), then, to a fixed
/// point, the names in what a local of those is defined or assigned from (`def tooHumid =
/// humidity1`) and in the arguments a method is called with where its parameter is one of
/// them (`getDayOk(A_day)` tests `dayList`). Scoping is ignored: a name more is a factor more,
/// never a branch missed.
pub(super) fn branch_names(script: &Script) -> Vec<String> {
    #[derive(Default)]
    struct Scan {
        names: Vec<String>,
        /// (local, names of its value), from `def` and assignments to a bare name.
        flows: Vec<(String, Vec<String>)>,
        /// (method, argument names per position), from calls of no target.
        calls: Vec<(String, Vec<Vec<String>>)>,
    }
    fn vars(e: &Expr) -> Vec<String> {
        struct Vars(Vec<String>);
        impl Walk for Vars {
            fn expr(&mut self, e: &Expr) {
                if let Expr::Var(n) = e {
                    self.0.push(n.clone());
                }
                self.children(e)
            }
        }
        let mut v = Vars(Vec::new());
        v.expr(e);
        v.0
    }
    impl Walk for Scan {
        fn expr(&mut self, e: &Expr) {
            match e {
                Expr::Ternary(c, _, _) | Expr::Unary("!", c) => self.names.extend(vars(c)),
                Expr::Binary("&&" | "||", a, b) => {
                    self.names.extend(vars(a));
                    self.names.extend(vars(b));
                }
                Expr::Assign { target, value, .. } => {
                    if let Expr::Var(n) = &**target {
                        self.flows.push((n.clone(), vars(value)));
                    }
                }
                Expr::Call { target: None, name, args, .. } => {
                    self.calls.push((name.clone(), args.iter().map(|a| vars(a.value())).collect()))
                }
                _ => {}
            }
            self.children(e)
        }
        fn stmt(&mut self, st: &Stmt) {
            match st {
                Stmt::If(c, _, _, _) | Stmt::While(c, _) | Stmt::For(_, Some(c), _, _) | Stmt::Switch(c, _) => {
                    self.names.extend(vars(c))
                }
                Stmt::Def(n, Some(e), _) => self.flows.push((n.to_string(), vars(e))),
                _ => {}
            }
            footprint::walk_stmt(self, st)
        }
    }
    let mut sc = Scan::default();
    sc.stmts(&script.top);
    for m in &script.methods {
        sc.stmts(&m.body);
    }
    let mut names = sc.names;
    names.sort_unstable();
    names.dedup();
    loop {
        let before = names.len();
        for (local, from) in &sc.flows {
            if names.contains(local) {
                names.extend(from.iter().filter(|n| !names.contains(n)).cloned().collect::<Vec<_>>());
            }
        }
        for m in &script.methods {
            for (i, p) in m.params.iter().enumerate() {
                if !names.iter().any(|n| **n == **p) {
                    continue;
                }
                for (_, args) in sc.calls.iter().filter(|c| c.0 == m.name) {
                    let new: Vec<String> =
                        args.get(i).into_iter().flatten().filter(|n| !names.contains(n)).cloned().collect();
                    names.extend(new);
                }
            }
        }
        names.sort_unstable();
        names.dedup();
        if names.len() == before {
            break;
        }
    }
    names
}

/// The mode changes of `script` the model does not carry out, `line: why` each: a location
/// event an app sends (`sendLocationEvent(name: "mode", ...)`, or a name it computes), which on
/// a hub may change the mode of every app; the model sends none.
pub(super) fn unmodelled_mode_writes(script: &Script) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    load::each_call(script, &mut |e, line| {
        let Expr::Call { name, args, .. } = e else { return };
        if name != "sendLocationEvent" {
            return;
        }
        let named = args.iter().find_map(|a| match a {
            Arg::Named(n, v) if n == "name" => Some(v),
            _ => None,
        });
        let in_map = || match args.first() {
            Some(Arg::Pos(Expr::Map(m))) => {
                m.iter().find(|(k, _)| matches!(k, Expr::Str(k) if &**k == "name")).map(|p| &p.1)
            }
            _ => None,
        };
        match named.or_else(in_map) {
            Some(Expr::Str(n)) if &**n != "mode" => {}
            _ => out.push((line, "a location event that may set the mode (`sendLocationEvent`): not sent".to_string())),
        }
    });
    out
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

/// A covering array for factors with `counts` values each, factor i belonging to app
/// `apps[i]`: rows of value numbers such that every two factors of different apps take every
/// pair of their values in some row, and every factor each of its values; row 0 is all zeros.
/// ([`SmartAppModel::person_picks`] gives each factor its own group: every two are paired.)
/// Empty when there is no factor.
///
/// Greedy, deterministically (as AETG builds its test suites): each row is the best of a few
/// candidates, each started from one goal not covered yet, filled factor by factor with the
/// value covering most goals with those set, then improved factor by factor against the whole
/// row while that covers more.
pub fn covering(counts: &[usize], apps: &[usize]) -> Vec<Vec<u8>> {
    let k = counts.len();
    if k == 0 {
        return Vec::new();
    }
    let mut left = Goals::new(counts, apps);
    let mut rows: Vec<Vec<u8>> = vec![vec![0; k]];
    left.cover(&vec![0; k]);
    // Candidates per row: enough to find good rows, few enough that a system of many factors
    // loads at once.
    const CANDIDATES: usize = 24;
    while left.count > 0 {
        let mut best: Option<(usize, Vec<usize>)> = None;
        for seed in left.uncovered().take(CANDIDATES) {
            let row = left.row_from(seed);
            let n = left.covered_by(&row);
            if best.as_ref().is_none_or(|(m, _)| n > *m) {
                best = Some((n, row));
            }
        }
        let Some((_, row)) = best else { break };
        left.cover(&row);
        rows.push(row.into_iter().map(|v| v as u8).collect());
    }
    rows
}

/// The goals of [`covering`] not covered yet: each factor's values, and the value pairs of
/// every two factors of different apps.
struct Goals<'a> {
    counts: &'a [usize],
    /// Per factor, its values not taken yet.
    single: Vec<Vec<bool>>,
    /// Per factors i < j of different apps, their value pairs (x * counts[j] + y) not taken
    /// together yet; empty for two factors of one app.
    pairs: Vec<Vec<Vec<bool>>>,
    count: usize,
}

impl<'a> Goals<'a> {
    fn new(counts: &'a [usize], apps: &[usize]) -> Goals<'a> {
        let k = counts.len();
        let single: Vec<Vec<bool>> = counts.iter().map(|&c| vec![true; c]).collect();
        let pairs: Vec<Vec<Vec<bool>>> = (0..k)
            .map(|i| {
                (0..k)
                    .map(|j| if i < j && apps[i] != apps[j] { vec![true; counts[i] * counts[j]] } else { Vec::new() })
                    .collect()
            })
            .collect();
        let count = single.iter().map(Vec::len).sum::<usize>()
            + pairs.iter().flat_map(|p| p.iter().map(Vec::len)).sum::<usize>();
        Goals { counts, single, pairs, count }
    }

    /// Whether factors f, g (f != g) at values v, w make a goal not covered yet.
    fn pair_left(&self, f: usize, v: usize, g: usize, w: usize) -> bool {
        let (i, x, j, y) = if f < g { (f, v, g, w) } else { (g, w, f, v) };
        self.pairs[i][j].get(x * self.counts[j] + y) == Some(&true)
    }

    /// The goals not covered yet that factor f at value v covers with the factors set in `row`.
    fn gain(&self, row: &[Option<usize>], f: usize, v: usize) -> usize {
        usize::from(self.single[f][v])
            + (0..row.len()).filter(|&g| g != f).filter(|&g| row[g].is_some_and(|w| self.pair_left(f, v, g, w))).count()
    }

    /// The goals not covered yet, as the values they fix: (factor, value) and maybe a second.
    fn uncovered(&self) -> impl Iterator<Item = ((usize, usize), Option<(usize, usize)>)> + '_ {
        let k = self.counts.len();
        let pairs = (0..k).flat_map(move |i| {
            (i + 1..k).flat_map(move |j| {
                let c = self.counts[j];
                (self.pairs[i][j].iter().enumerate()).filter(|p| *p.1).map(move |(p, _)| ((i, p / c), Some((j, p % c))))
            })
        });
        let singles = (0..k)
            .flat_map(move |i| (self.single[i].iter().enumerate()).filter(|p| *p.1).map(move |(x, _)| ((i, x), None)));
        pairs.chain(singles)
    }

    /// A row from a seed goal (see [`covering`]).
    fn row_from(&self, seed: ((usize, usize), Option<(usize, usize)>)) -> Vec<usize> {
        let k = self.counts.len();
        let mut row: Vec<Option<usize>> = vec![None; k];
        let fixed = [Some(seed.0), seed.1];
        for &(f, v) in fixed.iter().flatten() {
            row[f] = Some(v);
        }
        let is_fixed = |f: usize| fixed.iter().flatten().any(|p| p.0 == f);
        let best = |row: &[Option<usize>], f: usize| {
            (0..self.counts[f]).max_by_key(|&v| (self.gain(row, f, v), std::cmp::Reverse(v))).unwrap_or(0)
        };
        for f in 0..k {
            if row[f].is_none() {
                row[f] = Some(best(&row, f));
            }
        }
        // Each change covers strictly more goals, so this ends.
        let mut better = true;
        while better {
            better = false;
            for f in (0..k).filter(|&f| !is_fixed(f)) {
                let (now, b) = (row[f].unwrap_or(0), best(&row, f));
                if self.gain(&row, f, b) > self.gain(&row, f, now) {
                    row[f] = Some(b);
                    better = true;
                }
            }
        }
        row.into_iter().map(|v| v.unwrap_or(0)).collect()
    }

    /// How many goals not covered yet `row` covers.
    fn covered_by(&self, row: &[usize]) -> usize {
        let k = row.len();
        (0..k)
            .map(|i| {
                usize::from(self.single[i][row[i]])
                    + (i + 1..k).filter(|&j| self.pair_left(i, row[i], j, row[j])).count()
            })
            .sum()
    }

    fn cover(&mut self, row: &[usize]) {
        let k = row.len();
        for i in 0..k {
            if std::mem::replace(&mut self.single[i][row[i]], false) {
                self.count -= 1;
            }
            for j in i + 1..k {
                let c = self.counts[j];
                if let Some(cell) = self.pairs[i][j].get_mut(row[i] * c + row[j]) {
                    if std::mem::replace(cell, false) {
                        self.count -= 1;
                    }
                }
            }
        }
    }
}
