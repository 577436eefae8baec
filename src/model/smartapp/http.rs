//! HTTP requests with a response closure: the server's answer as the environment's choice.
//!
//! `httpGet(params) { resp -> ... }` (and `httpPost`, `httpPut`, `httpDelete`, `httpPostJson`,
//! `httpPutJson`) sends a request and, on a hub, runs the closure inside the call with the
//! server's response. What the server answers is not the app's to decide, as what a device
//! reports is not: jenkins-notifier turns its switches on when the build server says
//! `resp.data.result == "FAILURE"` and off on `"SUCCESS"`, so an app that never sees a response
//! never commands a switch.
//!
//! **The model.** Each request site (an app and the line of the call) whose closure compares a
//! field of the response with a literal has a *server*: a device of its own, `server.<app>.L<line>`,
//! with one attribute, `response`, holding which of the site's *variants* the server answers
//! now. A variant gives every compared field (a path from the closure's parameter:
//! `resp.data.result`, `resp.status`) one value: one of the literals it is compared with
//! (`==`, `!=`, a `switch` case), or one value equal to none of them ("other": `other` for
//! text, the largest number plus one). The variants are every
//! combination of those values when there are at most [`MAX_VARIANTS`], else each value of
//! each field with the others at "other"; the first variant is all "other", the server's answer
//! in the initial state. The environment changes the server's answer by events
//! `server.<app>.L<line>.<variant>`, one per variant, always enabled, exactly as a sensor's
//! report changes its attribute (the slot is written, no handler runs). The request reads the
//! slot and runs the closure at once with a response built from the variant: `status` 200 and
//! `data` an empty map unless the variant sets them, then every compared field. A site whose
//! closure compares nothing has no server: its closure runs with that fixed response.
//!
//! **Why this over-approximates a server, and what it abstracts.** A closure's branches on the
//! response are decided by its comparisons; for each comparison the variants give a value that
//! makes it true and one that makes it false (the literal and "other"), so every branch a real response can take is taken by some variant (for one
//! field exactly; for several, every combination when they are few). The server may answer any
//! variant at any request, in any order, since an event may change its answer between any two
//! transitions: every sequence of answers a real server gives is a schedule of the model. What
//! is merged: two requests of one site within one transition get the same answer (a loop of
//! requests); a field read into a local before it is compared is not seen as compared, and one
//! only ordered against a number (`resp.status >= 400`) is not varied: both keep their fixed
//! value (`status` 200: the request succeeded). Varying thresholds too (a value on each side)
//! made the loggers' pairs of VMCAI 2022 Table A.1 (unbuffered-event-sender's `resp.status >=
//! 400`) pass `stateful-dpor`'s state cap with every state stored (tests/it/smartapp_pairs.rs). Every strategy explores the server's events as any environment event:
//! the event writes the slot, the request reads it, and the static footprints count the slot as
//! read by its app (`footprint.rs`, `AppReach`), so it is never taken for dead (`dead.rs`).
//!
//! An asynchronous request (`asynchttp_v1.get(handler, params)`) and a closure given by a
//! variable are not modelled: the load lists them as such, with file and line.

use super::footprint::Walk;
use super::*;

/// The synchronous HTTP calls whose closure gets the response.
pub(super) const HTTP_CALLS: &[&str] = &["httpGet", "httpPost", "httpPut", "httpDelete", "httpPostJson", "httpPutJson"];

/// At most this many combinations of the compared fields' values are explored per site; above,
/// each value of each field is taken alone (module header).
pub(super) const MAX_VARIANTS: usize = 16;

/// The attribute of a server device: the variant it answers.
pub(super) const RESPONSE: &str = "response";

/// One request site with a server: its app, line, device and variants (label, response).
#[derive(Clone, Debug)]
pub(super) struct Server {
    pub app: usize,
    pub line: usize,
    pub dev: u16,
    pub variants: Vec<(Text, Value)>,
}

/// A request site as the scan finds it: the line and the compared fields with their values.
pub(super) struct Site {
    pub line: usize,
    pub fields: Vec<(Vec<String>, Vec<Value>)>,
}

/// The closure of a request call, when it is given in place: the last positional argument.
pub(super) fn response_closure(args: &[Arg]) -> Option<&Arc<(Vec<Name>, Vec<Stmt>)>> {
    match args.iter().rev().find(|a| matches!(a, Arg::Pos(_))) {
        Some(Arg::Pos(Expr::Closure(c))) => Some(c),
        _ => None,
    }
}

/// The path of `e` from the closure's parameter `p` (`resp.data.result`: `data`, `result`).
fn field_path(e: &Expr, p: &str) -> Option<Vec<String>> {
    match e {
        Expr::Var(v) if v == p => Some(Vec::new()),
        Expr::Member { obj, name, spread: false } => {
            let mut path = field_path(obj, p)?;
            path.push(name.clone());
            Some(path)
        }
        Expr::Index(obj, k) => match k.as_ref() {
            Expr::Str(k) => {
                let mut path = field_path(obj, p)?;
                path.push(k.to_string());
                Some(path)
            }
            _ => None,
        },
        _ => None,
    }
}

fn literal(e: &Expr) -> Option<Value> {
    match e {
        Expr::Str(x) => Some(Value::Str(Text::from(x.to_string()))),
        Expr::Int(i) => Some(Value::Int(*i)),
        Expr::Dec(d) => Some(Value::Dec(*d)),
        Expr::Bool(b) => Some(Value::Bool(*b)),
        Expr::Unary("-", x) => match x.as_ref() {
            Expr::Int(i) => Some(Value::Int(-i)),
            _ => None,
        },
        _ => None,
    }
}

/// The compared fields of a response closure (parameter `p`, body `body`), each with its values.
fn compared_fields(p: &str, body: &[Stmt]) -> Vec<(Vec<String>, Vec<Value>)> {
    struct Scan<'a> {
        p: &'a str,
        found: Vec<(Vec<String>, Vec<Value>)>,
    }
    impl Scan<'_> {
        fn add(&mut self, path: Vec<String>, v: Value) {
            // A path through `data` or any other field is kept whole; the empty path (the
            // response itself) is never a text.
            if path.is_empty() {
                return;
            }
            let i = match self.found.iter().position(|f| f.0 == path) {
                Some(i) => i,
                None => {
                    self.found.push((path, Vec::new()));
                    self.found.len() - 1
                }
            };
            if !self.found[i].1.iter().any(|x| *x == v) {
                self.found[i].1.push(v);
            }
        }
    }
    impl Walk for Scan<'_> {
        fn expr(&mut self, e: &Expr) {
            if let Expr::Binary(op, a, b) = e {
                let pair = match (field_path(a, self.p), literal(b), field_path(b, self.p), literal(a)) {
                    (Some(path), Some(v), _, _) | (_, _, Some(path), Some(v)) => Some((path, v)),
                    _ => None,
                };
                // Only equality: an ordered comparison (`resp.status >= 400`) is not varied.
                if let (Some((path, v)), "==" | "!=") = (pair, *op) {
                    self.add(path, v)
                }
            }
            self.children(e)
        }
        fn stmt(&mut self, st: &Stmt) {
            if let Stmt::Switch(v, cases) = st {
                if let Some(path) = field_path(v, self.p) {
                    for x in cases.iter().flat_map(|c| c.0.iter()).filter_map(literal) {
                        self.add(path.clone(), x);
                    }
                }
            }
            footprint::walk_stmt(self, st)
        }
    }
    let mut sc = Scan { p, found: Vec::new() };
    sc.stmts(body);
    sc.found
}

/// The request sites of `app` whose closure compares a field (in source order, one per line),
/// and the requests the model does not carry out (line, why).
pub(super) fn request_sites(app: &App) -> (Vec<Site>, Vec<(usize, String)>) {
    let mut found: Vec<Site> = Vec::new();
    let mut odd = Vec::new();
    footprint::each_expr_with_line(app, &mut |line, e| {
        match e {
            Expr::Call { target: None, name, args, .. }
                if HTTP_CALLS.contains(&name.as_str()) && !app.methods.contains_key(name.as_str()) =>
            {
                match response_closure(args) {
                    Some(c) => {
                        let p = c.0.first().map_or("it", |n| &**n);
                        let fields = compared_fields(p, &c.1);
                        if !fields.is_empty() {
                            match found.iter_mut().find(|s| s.line == line) {
                                // Two requests on one line share their server.
                                Some(s) => s.fields.extend(fields),
                                None => found.push(Site { line, fields }),
                            }
                        }
                    }
                    None if args.iter().any(|a| matches!(a, Arg::Pos(Expr::Var(_)))) && args.len() > 1 => {
                        odd.push((
                            line,
                            format!("`{name}` with a response handler given by a variable: its handler is not run"),
                        ));
                    }
                    None => {}
                }
            }
            // A web endpoint: `path("/hue") { action: [PUT: "postHue"] }` in `mappings`.
            Expr::Call { target: None, name, args, .. } if name == "path" => {
                if let (Some(Arg::Pos(Expr::Str(p))), Some(c)) = (args.first(), response_closure(args)) {
                    let handlers: Vec<String> =
                        c.1.iter()
                            .filter_map(|st| match st {
                                Stmt::Expr(Expr::Map(kv), _) => Some(kv),
                                _ => None,
                            })
                            .flatten()
                            .filter_map(|(_, v)| if let Expr::Str(m) = v { Some(m.to_string()) } else { None })
                            .collect();
                    if !handlers.is_empty() {
                        let names: Vec<String> = handlers.iter().map(|h| format!("`{h}`")).collect();
                        odd.push((
                            line,
                            format!("web endpoint `{p}`: not modelled, never called (handler {})", names.join(", ")),
                        ));
                    }
                }
            }
            Expr::Call { target: Some(t), name, .. } if matches!(t.as_ref(), Expr::Var(v) if v == "asynchttp_v1" || v == "asynchttp") =>
            {
                odd.push((line, format!("asynchronous request `{name}`: not modelled, its callback never runs")));
            }
            _ => {}
        }
    });
    (found, odd)
}

/// A value of a field equal to none of `values`: `other` (with marks until it is new) for text,
/// one more than the largest for numbers, the missing one for booleans, else null.
fn other_value(values: &[Value]) -> Value {
    if values.iter().all(|v| matches!(v, Value::Int(_) | Value::Dec(_))) {
        let top = values.iter().filter_map(|v| v.num()).fold(f64::MIN, f64::max);
        return Value::Int(top as i64 + 1);
    }
    if values.iter().all(|v| matches!(v, Value::Bool(_))) {
        return match (values.contains(&Value::Bool(true)), values.contains(&Value::Bool(false))) {
            (true, false) => Value::Bool(false),
            (false, true) => Value::Bool(true),
            _ => Value::Null,
        };
    }
    let mut o = String::from("other");
    while values.iter().any(|v| loose_eq(v, &s(&o))) {
        o.push('_');
    }
    s(&o)
}

/// Puts `v` at `path` of the map `m` (maps made on the way).
fn put_path(m: &mut Vec<(Value, Value)>, path: &[String], v: Value) {
    let Some((first, rest)) = path.split_first() else { return };
    if rest.is_empty() {
        map_put(m, s(first), v);
        return;
    }
    let mut inner = match map_get_str(m, first) {
        Some(Value::Map(x)) => (**x).clone(),
        _ => Vec::new(),
    };
    put_path(&mut inner, rest, v);
    map_put(m, s(first), Value::Map(Arc::new(inner)));
}

/// The response a variant gives: `status` 200 and `data` an empty map, then each field's value.
pub(super) fn response(fields: &[(&[String], &Value)]) -> Value {
    let mut m = vec![(s("status"), Value::Int(200)), (s("data"), map(Vec::new()))];
    for (path, v) in fields {
        put_path(&mut m, path, (*v).clone());
    }
    Value::Map(Arc::new(m))
}

/// The variants of a site (module header): label and response each, all "other" first.
pub(super) fn variants(fields: &[(Vec<String>, Vec<Value>)]) -> Vec<(Text, Value)> {
    // Each field's values, "other" first.
    let choices: Vec<Vec<Value>> = fields
        .iter()
        .map(|(_, vals)| {
            let mut c = vec![other_value(vals)];
            c.extend(vals.iter().cloned());
            c
        })
        .collect();
    let product = choices.iter().try_fold(1usize, |n, c| n.checked_mul(c.len()).filter(|&n| n <= MAX_VARIANTS));
    let picks: Vec<Vec<usize>> = match product {
        Some(n) => (0..n)
            .map(|mut k| {
                choices
                    .iter()
                    .map(|c| {
                        let i = k % c.len();
                        k /= c.len();
                        i
                    })
                    .collect()
            })
            .collect(),
        None => {
            let mut out = vec![vec![0; choices.len()]];
            for (f, c) in choices.iter().enumerate() {
                for i in 1..c.len() {
                    let mut row = vec![0; choices.len()];
                    row[f] = i;
                    out.push(row);
                }
            }
            out
        }
    };
    picks
        .into_iter()
        .map(|row| {
            let set: Vec<(&[String], &Value)> =
                row.iter().enumerate().map(|(f, &i)| (&fields[f].0[..], &choices[f][i])).collect();
            let label = if fields.len() == 1 {
                set[0].1.text()
            } else {
                set.iter().map(|(p, v)| format!("{}={}", p.join("."), v.text())).collect::<Vec<_>>().join(",")
            };
            (Text::from(label), response(&set))
        })
        .collect()
}

impl SmartAppModel {
    /// The server of `app`'s request at `line`, if it has one.
    pub(super) fn server(&self, app: usize, line: usize) -> Option<&Server> {
        self.servers.iter().find(|s| s.app == app && s.line == line)
    }

    /// The attribute slots of `app`'s servers: read by its requests.
    pub(super) fn server_slots(&self, app: usize) -> Vec<usize> {
        self.servers.iter().filter(|s| s.app == app).filter_map(|s| self.slot(s.dev, RESPONSE)).collect()
    }

    /// Whether event `e` changes a server's answer (no event of IoTCheck's Extractor).
    pub(super) fn is_server_event(&self, e: &EnvEvent) -> bool {
        e.dev.is_some_and(|d| self.servers.iter().any(|s| s.dev == d))
    }
}

impl Ctx<'_> {
    /// A request with a response closure `c` (call `name`, arguments `args`): the other
    /// arguments are evaluated and dropped; the closure runs at once with the response the
    /// site's server answers now (module header).
    pub(super) fn http_request(&mut self, args: &[Arg], c: &Arc<(Vec<Name>, Vec<Stmt>)>) -> R<Value> {
        let rest: Vec<Arg> =
            args.iter().filter(|a| !matches!(a, Arg::Pos(Expr::Closure(x)) if Arc::ptr_eq(x, c))).cloned().collect();
        self.discard_args(&rest)?;
        let m = self.m;
        let resp = match m.server(self.app, self.line) {
            Some(server) => {
                let slot = m.slot(server.dev, RESPONSE).unwrap_or(0);
                self.touch(slot as u32, false);
                let now = &self.st.attrs[slot];
                server
                    .variants
                    .iter()
                    .find(|v| loose_eq(&Value::Str(v.0.clone()), now))
                    .unwrap_or(&server.variants[0])
                    .1
                    .clone()
            }
            None => response(&[]),
        };
        self.call_closure(c, smallvec![resp]).map(|_| Value::Null)
    }
}
