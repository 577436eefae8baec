//! Building a system from parsed apps: inputs bound to devices and settings, the environment's
//! events as IoTCheck's Extractor lists them, and every app installed (its subscriptions
//! taken from running `installed()`/`initialize()`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::trace::InputError;

/// What [`walk`] shows its visitor: a call expression, or a local `def` given a map literal (an
/// input declared through a map, `def inputMotionA = [name: ..., type: ...]`).
pub(super) enum Node<'a> {
    Call(&'a Expr),
    MapDef(&'a str, &'a [(Expr, Expr)]),
}

/// Calls `f` on every call expression and map `def` of a script (top level and methods, inside
/// closures, arguments and maps too), in source order, with the line of the statement it is in.
pub(super) fn walk<'s>(script: &'s Script, f: &mut dyn FnMut(Node<'s>, usize)) {
    walk_scoped(script, &mut |n, line, _| f(n, line))
}

/// [`walk`], telling the visitor which method (by index; `None` at top level) the node is in.
pub(super) fn walk_scoped<'s>(script: &'s Script, f: &mut dyn FnMut(Node<'s>, usize, Option<usize>)) {
    walk_body(&script.top, 0, &mut |n, line| f(n, line, None));
    for (i, m) in script.methods.iter().enumerate() {
        walk_body(&m.body, m.line, &mut |n, line| f(n, line, Some(i)));
    }
}

/// [`walk`] over one body of statements, `line` the line before its first statement.
pub(super) fn walk_body<'s>(body: &'s [Stmt], line: usize, f: &mut dyn FnMut(Node<'s>, usize)) {
    fn stmts<'s>(body: &'s [Stmt], line: usize, f: &mut dyn FnMut(Node<'s>, usize)) {
        let mut line = line;
        for st in body {
            match st {
                Stmt::Expr(e, l) => {
                    line = *l;
                    expr(e, line, f)
                }
                Stmt::Def(n, Some(e), l) => {
                    line = *l;
                    if let Expr::Map(m) = e {
                        f(Node::MapDef(n, m), line);
                    }
                    expr(e, line, f)
                }
                Stmt::Return(Some(e)) | Stmt::Throw(e) => expr(e, line, f),
                Stmt::If(c, a, b, _) => {
                    expr(c, line, f);
                    stmts(a, line, f);
                    stmts(b, line, f);
                }
                Stmt::While(c, b) | Stmt::ForIn(_, c, b) => {
                    expr(c, line, f);
                    stmts(b, line, f)
                }
                Stmt::Block(b) | Stmt::For(_, _, _, b) => stmts(b, line, f),
                Stmt::Switch(v, cases) => {
                    expr(v, line, f);
                    cases.iter().for_each(|c| stmts(&c.2, line, f))
                }
                Stmt::Try(a, c, fin) => {
                    stmts(a, line, f);
                    c.iter().for_each(|c| stmts(&c.1, line, f));
                    stmts(fin, line, f);
                }
                _ => {}
            }
        }
    }
    fn expr<'s>(e: &'s Expr, line: usize, f: &mut dyn FnMut(Node<'s>, usize)) {
        match e {
            Expr::Call { target, args, .. } => {
                f(Node::Call(e), line);
                if let Some(t) = target {
                    expr(t, line, f);
                }
                for a in args {
                    match a {
                        Arg::Pos(e) | Arg::Named(_, e) => expr(e, line, f),
                    }
                }
            }
            Expr::Closure(c) => stmts(&c.1, line, f),
            Expr::Map(m) => m.iter().for_each(|(_, v)| expr(v, line, f)),
            Expr::Assign { value, .. } => expr(value, line, f),
            _ => {}
        }
    }
    stmts(body, line, f)
}

/// Calls `f` on every call expression of a script with its line.
pub(super) fn each_call(script: &Script, f: &mut dyn FnMut(&Expr, usize)) {
    walk(script, &mut |n, line| {
        if let Node::Call(e) = n {
            f(e, line)
        }
    });
}

/// One `input` of a script.
pub(super) struct Input {
    pub name: String,
    pub ty: String,
    /// Its default or first option (what IoTCheck's Extractor picks), or null.
    pub default: Value,
    pub line: usize,
    /// Left unset (null): an optional input with nothing to choose from at installation.
    pub unset: bool,
    /// `multiple: true`: a list of devices or values.
    pub multiple: bool,
    /// Its options when written out as literals (an enum's), for checking a home's binding.
    pub options: Vec<String>,
    /// `required: false`: a person may leave it unset (`choices.rs`).
    pub optional: bool,
}

/// Every `input` of a script, written out (`input "x", "capability.switch"`, `input name: "x",
/// type: ...`) or declared through a map held by a local (`def m = [name: "x", type: ...]`, then
/// `input m`, as lighting-director does); and, for each it cannot read, its line and why.
pub(super) fn inputs(script: &Script) -> (Vec<Input>, Vec<(usize, String)>) {
    fn literal(e: Option<&Expr>) -> Option<Value> {
        match e? {
            Expr::Str(x) => Some(s(x)),
            Expr::Int(i) => Some(Value::Int(*i)),
            Expr::Dec(d) => Some(Value::Dec(*d)),
            Expr::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        }
    }
    fn first_option(e: Option<&Expr>) -> Option<Value> {
        match e? {
            Expr::List(l) => match l.first()? {
                // `options: [["k": "label"], ...]`: the key.
                Expr::Map(m) => literal(m.first().map(|p| &p.0)),
                x => literal(Some(x)),
            },
            Expr::Map(m) => literal(m.first().map(|p| &p.0)),
            _ => None,
        }
    }
    let mut maps: HashMap<String, Vec<(String, &Expr)>> = HashMap::new();
    walk(script, &mut |n, _| {
        if let Node::MapDef(name, m) = n {
            let fields = m
                .iter()
                .filter_map(|(k, v)| match k {
                    Expr::Str(k) => Some((k.to_string(), v)),
                    Expr::Var(k) => Some((k.clone(), v)),
                    _ => None,
                })
                .collect();
            maps.insert(name.to_string(), fields);
        }
    });
    let routines = super::choices::RoutineLists::of(script);
    let envs = super::computed_names::Envs::of(script);
    let mut out = Vec::new();
    let mut unread = Vec::new();
    walk_scoped(script, &mut |n, line, method| {
        let Node::Call(e) = n else { return };
        let Expr::Call { target: None, name, args, .. } = e else { return };
        // `ifSet`/`ifUnset` (several apps' helpers around `input`) declare inputs too.
        if name != "input" && name != "ifSet" && name != "ifUnset" {
            return;
        }
        let mut pos: Vec<&Expr> = Vec::new();
        let mut named: HashMap<String, &Expr> = HashMap::new();
        for a in args {
            match a {
                Arg::Pos(x @ (Expr::Str(_) | Expr::GStr(_) | Expr::Binary("+", ..))) => pos.push(x),
                Arg::Pos(Expr::Var(v)) if maps.contains_key(v) => {
                    for (k, v) in &maps[v] {
                        named.insert(k.clone(), v);
                    }
                }
                Arg::Pos(Expr::Map(m)) => {
                    for (k, v) in m {
                        if let Expr::Str(k) = k {
                            named.insert(k.to_string(), v);
                        }
                    }
                }
                Arg::Named(n, v) => {
                    named.insert(n.clone(), v);
                }
                _ => {}
            }
        }
        // The name: written out, or folded in each constant environment of the page method
        // it is in (computed_names.rs): one input per name.
        let names = pos.first().copied().or_else(|| named.get("name").copied()).map(|x| envs.names(method, x));
        let ty = match pos.get(1).copied().or_else(|| named.get("type").copied()) {
            Some(Expr::Str(x)) => Some(x.to_string()),
            _ => None,
        };
        let (Some(ns), Some(t)) = (names.filter(|ns| !ns.is_empty()), ty) else {
            let callee = method.and_then(|m| envs.unfolded.iter().find(|u| u.1 == script.methods[m].name));
            let why = match callee {
                Some((l, _)) => {
                    format!("an `input` whose name is computed from an argument not constant at line {l}: not bound")
                }
                None => "an `input` whose name or type is not written out: not bound".to_string(),
            };
            unread.push((line, why));
            return;
        };
        let metadata_values = match named.get("metadata") {
            Some(Expr::Map(m)) => m.iter().find(|(k, _)| matches!(k, Expr::Str(k) if &**k == "values")).map(|p| &p.1),
            _ => None,
        };
        // A choice among the location's routines (`options: location.helloHome?.getPhrases()*.label`,
        // through a local or a helper): the first of them, as a person picks one to use the
        // app's feature (`choices.rs`).
        let routine = named.get("options").copied().or(metadata_values).is_some_and(|o| routines.names(o));
        let default = literal(named.get("defaultValue").copied())
            .or_else(|| first_option(named.get("options").copied()))
            .or_else(|| first_option(metadata_values))
            .or_else(|| routine.then(|| s(super::choices::ROUTINES[0])))
            .unwrap_or(Value::Null);
        // An optional choice among options computed from devices (nfc-tag-toggle's master
        // lock: `options: lock.collect{...}`) has no option to take before the devices are
        // chosen: left unset, as a user skipping it leaves it (a made-up value would name no
        // device, and the app would treat it as a master that is never found).
        let computed_options = named.get("options").is_some_and(|o| !matches!(o, Expr::List(_) | Expr::Map(_)));
        let optional = matches!(named.get("required"), Some(Expr::Bool(false)));
        let unset = default == Value::Null && computed_options && optional;
        let multiple = matches!(named.get("multiple"), Some(Expr::Bool(true)));
        let options = literal_options(named.get("options").copied().or(metadata_values));
        for n in ns {
            out.push(Input {
                name: n,
                ty: t.clone(),
                default: default.clone(),
                line,
                unset,
                multiple,
                options: options.clone(),
                optional,
            });
        }
    });
    (out, unread)
}

/// The literal options of an input (`options: ["a", "b"]`, `[["k": "label"]]`, `["k": "label"]`).
fn literal_options(e: Option<&Expr>) -> Vec<String> {
    let key = |x: &Expr| match x {
        Expr::Str(k) => Some(k.to_string()),
        Expr::Int(i) => Some(i.to_string()),
        _ => None,
    };
    match e {
        Some(Expr::List(l)) => l
            .iter()
            .flat_map(|x| match x {
                Expr::Map(m) => m.iter().filter_map(|p| key(&p.0)).collect::<Vec<_>>(),
                x => key(x).into_iter().collect(),
            })
            .collect(),
        Some(Expr::Map(m)) => m.iter().filter_map(|p| key(&p.0)).collect(),
        _ => Vec::new(),
    }
}

/// The value IoTCheck's Extractor gives an input of a non-device type.
pub(super) fn setting_value(ty: &str, default: Value) -> Value {
    match ty {
        // A bool input's value is a boolean, whatever text its default is written as.
        "bool" | "boolean" if default.text() == "false" => Value::Bool(false),
        "bool" | "boolean" if default.text() == "true" => Value::Bool(true),
        _ if default != Value::Null => default,
        "number" | "decimal" => Value::Int(5),
        "bool" | "boolean" => Value::Bool(true),
        "time" => lit("15:00"),
        "mode" => lit("home"),
        "phone" | "contact" => lit("1234567890"),
        "enum" | "text" | "string" | "password" | "email" => lit("text"),
        _ => Value::Null,
    }
}

/// The devices an input's value names: one, or each of a list (a home's `multiple` input).
pub(super) fn setting_devices(v: &Value) -> Vec<u16> {
    v.items_ref().iter().filter_map(|x| if let Value::Dev(d) = x { Some(*d) } else { None }).collect()
}

/// A `subscribe` call found in the source.
pub(super) struct SubscribeCall {
    /// The input (or `location`, `app`) it subscribes on; empty when not a name.
    pub var: String,
    /// The event name (`switch`, `contact.open`, `location`, `app`); empty when computed.
    pub event: String,
    pub line: usize,
}

/// Subscribe calls in source order (statically). The target may be an input, an item of one
/// (`theSensor[i]`, one device of a list), a member (`settings.x`), `location` or `app`.
pub(super) fn subscribe_calls(script: &Script) -> Vec<SubscribeCall> {
    let mut out = Vec::new();
    each_call(script, &mut |e, line| {
        let Expr::Call { target: None, name, args, .. } = e else { return };
        if name != "subscribe" {
            return;
        }
        let var = match args.first() {
            Some(Arg::Pos(Expr::Var(v))) => v.clone(),
            Some(Arg::Pos(Expr::Member { name, .. })) => name.clone(),
            Some(Arg::Pos(Expr::Index(o, _))) => match o.as_ref() {
                Expr::Var(v) => v.clone(),
                Expr::Member { name, .. } => name.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        let event = match args.get(1) {
            Some(Arg::Pos(Expr::Str(x))) if args.len() >= 3 => x.to_string(),
            _ if var == "location" => "location".into(),
            _ if var == "app" => "app".into(),
            _ => String::new(),
        };
        out.push(SubscribeCall { var, event, line });
    });
    out
}

/// `schedule(..., handler)` opening installed()/initialize(): IoTCheck's Extractor makes it an
/// event (a `schedule` elsewhere is not one; counting those too matches the paper less often).
pub(super) fn opening_schedule(script: &Script) -> Vec<String> {
    let mut out = Vec::new();
    for m in &script.methods {
        if m.name != "installed" && m.name != "initialize" {
            continue;
        }
        if let Some(Stmt::Expr(Expr::Call { target: None, name, args, .. }, _)) = m.body.first() {
            if name == "schedule" {
                match args.get(1) {
                    Some(Arg::Pos(Expr::Str(h))) => out.push(h.to_string()),
                    Some(Arg::Pos(Expr::Var(h))) => out.push(h.clone()),
                    _ => {}
                }
            }
        }
    }
    out
}

/// Parses the apps and builds the system they form.
pub fn load(files: &[PathBuf], opts: SmartAppOptions) -> Result<SmartAppModel, InputError> {
    let parsed = files.iter().map(|f| Ok((f.clone(), parse_app(f)?))).collect::<Result<Vec<_>, InputError>>()?;
    build(parsed, opts)
}

/// Reads and parses one app's file, as [`load`] does each of its files: the error names the
/// file, line, column and text.
pub fn parse_app(f: &Path) -> Result<Script, InputError> {
    let bytes = crate::trace::input::read(f)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(f, "not UTF-8 text"))?;
    groovy::parse(f, text)
}

/// The name an app goes by in reports: its file stem.
pub(super) fn app_name(p: &Path) -> String {
    p.file_stem().map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into_owned())
}

pub(super) fn build(parsed: Vec<(PathBuf, Script)>, opts: SmartAppOptions) -> Result<SmartAppModel, InputError> {
    build_home(parsed, opts, None)
}

/// [`build`], the apps configured by a home when one is given (home.rs): its devices first,
/// its bindings in place of the defaults.
pub(super) fn build_home(
    parsed: Vec<(PathBuf, Script)>,
    opts: SmartAppOptions,
    home: Option<&super::home::Setup>,
) -> Result<SmartAppModel, InputError> {
    if parsed.len() > 250 {
        return Err(InputError::file(&parsed[0].0, "too many apps in one system (at most 250)"));
    }
    // A misspelt scope name would silently leave every conflict out (the command line checks
    // it first, `conflict_scope`).
    if let Some(bad) = opts.conflicts_on.and_then(|s| s.names().iter().find(|n| !known_scope_name(n))) {
        return Err(InputError::file(&parsed[0].0, scope_name_error(bad)));
    }
    let mut devices: Vec<String> = Vec::new();
    let mut device_caps: Vec<Vec<String>> = Vec::new();
    if let Some(h) = home {
        h.declare_devices(&mut devices, &mut device_caps);
    }
    let mut apps = Vec::new();
    let mut unsupported = Vec::new();
    for (ai, (path, script)) in parsed.into_iter().enumerate() {
        let file = path.display().to_string();
        let mut settings = FxHashMap::default();
        let mut mode_inputs = Vec::new();
        let mut person = Vec::new();
        let (found, unread) = inputs(&script);
        for (line, why) in unread.into_iter().chain(super::choices::unmodelled_mode_writes(&script)) {
            unsupported.push(format!("{file}:{line}: {why}"));
        }
        let mut bound = Vec::new();
        if let Some(h) = home {
            bound = h.bind_app(ai, &app_name(&path), &found, &mut settings, &mut unsupported)?;
        }
        for input in found {
            if bound.contains(&input.name) {
                continue;
            }
            let Input { name, ty, default, line, unset, multiple, options, optional } = input;
            if !unset && !ty.starts_with("capability.") && !ty.starts_with("device.") {
                person.push(choices::Choosable { name: name.clone(), ty: ty.clone(), multiple, optional, options });
            }
            if ty == "mode" && !multiple && !unset && !mode_inputs.contains(&name) {
                mode_inputs.push(name.clone());
            }
            let v = if unset {
                Value::Null
            } else if ty.starts_with("capability.") || ty.starts_with("device.") {
                let cap = ty.split('.').nth(1).unwrap_or("").to_string();
                if capability_attrs(&cap).is_empty() && !capability_known_empty(&cap) {
                    unsupported.push(format!(
                        "{file}:{line}: input `{name}`: capability `{cap}` has no modelled attributes (only subscribed ones are kept)"
                    ));
                }
                let d = devices.iter().position(|c| *c == cap).unwrap_or_else(|| {
                    devices.push(cap.clone());
                    device_caps.push(vec![cap.clone()]);
                    devices.len() - 1
                });
                Value::Dev(d as u16)
            } else {
                setting_value(&ty, default)
            };
            settings.entry(name).or_insert(v);
        }
        let methods = script.methods.iter().enumerate().map(|(i, m)| (m.name.clone(), i)).collect();
        let callable = callable::callable(&script);
        apps.push(App { name: app_name(&path), file, script, methods, callable, settings, bound, mode_inputs, person });
    }
    // Attribute slots: each device's capability attributes, plus any subscribed attribute.
    let mut slots: Vec<(u16, String)> = Vec::new();
    let mut init_attrs = Vec::new();
    for (d, caps) in device_caps.iter().enumerate() {
        for (a, v) in caps.iter().flat_map(|cap| capability_attrs(cap)) {
            if slots.iter().any(|(x, y)| *x == d as u16 && y == a) {
                continue;
            }
            slots.push((d as u16, a.to_string()));
            init_attrs.push(match v.parse::<i64>() {
                Ok(_) => s(v),
                Err(_) => s(v),
            });
        }
    }
    // The environment's events, as IoTCheck's Extractor lists them.
    let mut events = Vec::new();
    let mut servers = Vec::new();
    // Grouped by event type and device (None: location, app, sun): a subscription to a value
    // (`contact.open`) adds that value, one without adds every value of the type. Counted so,
    // the pairs' event numbers match the paper's Evt. (see docs/smartapps.md).
    // (type, device, values, owning app or usize::MAX, attribute set)
    let mut groups: Vec<(String, Option<u16>, Vec<String>, usize, String)> = Vec::new();
    for (ai, app) in apps.iter().enumerate() {
        // Each method the app hands to a timer: an event the hub fires when it is due (`timers.rs`).
        let (timers, odd) = timers::timer_calls(app);
        for (line, why) in odd {
            unsupported.push(format!("{}:{line}: {why}", app.file));
        }
        for t in timers {
            events.push(EnvEvent {
                name: format!("schedule.{}.{}", app.name, t.method),
                dev: None,
                attr: Text::Static("schedule"),
                value: Text::Static(""),
                run: Some((ai, t.method)),
                extractor: t.extractor,
                touch: None,
            });
        }
        // Each request whose response closure compares a field: a server the environment
        // answers for, its answer an attribute the environment's events set (`http.rs`).
        let (sites, odd) = http::request_sites(app);
        for (line, why) in odd {
            unsupported.push(format!("{}:{line}: {why}", app.file));
        }
        for site in sites {
            let variants = http::variants(&site.fields);
            let d = devices.len() as u16;
            devices.push(format!("server.{}.L{}", app.name, site.line));
            device_caps.push(vec!["server".to_string()]);
            slots.push((d, http::RESPONSE.to_string()));
            init_attrs.push(Value::Str(variants[0].0.clone()));
            for (label, _) in &variants {
                events.push(EnvEvent {
                    name: format!("server.{}.L{}.{}", app.name, site.line, label.replace([' ', ',', '*'], "_")),
                    dev: Some(d),
                    attr: Text::Static(http::RESPONSE),
                    value: label.clone(),
                    run: None,
                    extractor: false,
                    touch: None,
                });
            }
            servers.push(http::Server { app: ai, line: site.line, dev: d, variants });
        }
        for SubscribeCall { var, event: ev, line } in subscribe_calls(&app.script) {
            let file = &app.file;
            if ev.is_empty() {
                unsupported
                    .push(format!("{file}:{line}: subscription with a computed event name: no event fired for it"));
                continue;
            }
            if var.is_empty() {
                unsupported.push(format!("{file}:{line}: subscription on a computed target: no event fired for it"));
                continue;
            }
            let setting_devs = app.settings.get(&var).map(setting_devices).unwrap_or_default();
            if var != "location" && var != "app" && setting_devs.is_empty() {
                unsupported.push(format!(
                    "{file}:{line}: subscription on `{var}`, which is not a device input: no event fired for it"
                ));
                continue;
            }
            if ev == "unlock" {
                continue;
            }
            let ty = event_type(&ev);
            // The attribute the event sets: the subscribed one (`tamper` for
            // `tamper.tampered`, which IoTCheck's Extractor counts as a contact event).
            let attr = match ty.as_str() {
                "water.dry" | "water.wet" => "water".to_string(),
                "doorState" => "door".to_string(),
                "location" => "mode".to_string(),
                "contact" if ev.starts_with("tamper") => "tamper".to_string(),
                t => t.to_string(),
            };
            if var == "app" {
                // A touch is of one app: its own event, running its own handlers (one however
                // many `subscribe(app, ...)` the source has: installed() and updated()).
                if events.iter().any(|e| e.touch == Some(ai)) {
                    continue;
                }
                events.push(EnvEvent {
                    name: format!("app.touch.{}", app.name),
                    dev: None,
                    attr: Text::Static("app"),
                    value: Text::Static("touch"),
                    run: None,
                    extractor: false,
                    touch: Some(ai),
                });
                continue;
            }
            if event_values(&ty) == ["1"] && !ev.contains('.') {
                unsupported.push(format!(
                    "{}:{line}: subscription to `{ev}`: no values known for this event type; the environment sends `1`",
                    app.file
                ));
            }
            let value = ev.split_once('.').map(|(_, v)| v.to_string()).filter(|_| !ev.starts_with("water."));
            // A subscription to one value counts for its app alone; a whole event type once for
            // all apps (what reproduces the paper's Evt., docs/smartapps.md).
            let owner_app = if value.is_some() { ai } else { usize::MAX };
            let values: Vec<String> = match value {
                Some(v) => vec![v],
                None => event_values(&ty).iter().map(|v| v.to_string()).collect(),
            };
            // Each device of the input (a home binds several to a `multiple` input).
            let devs: Vec<Option<u16>> =
                if var == "location" { vec![None] } else { setting_devs.iter().map(|&d| Some(d)).collect() };
            for dev in devs {
                match groups.iter_mut().find(|g| g.0 == ty && g.1 == dev && g.3 == owner_app && g.4 == attr) {
                    Some(g) => {
                        for v in &values {
                            if !g.2.contains(v) {
                                g.2.push(v.clone());
                            }
                        }
                    }
                    None => groups.push((ty.clone(), dev, values.clone(), owner_app, attr.clone())),
                }
            }
        }
    }
    for (_, dev, values, ai, attr) in groups {
        if let Some(d) = dev {
            if !slots.iter().any(|(x, a)| *x == d && *a == attr) {
                slots.push((d, attr.clone()));
                init_attrs.push(Value::Null);
            }
        }
        let owner = dev.map_or_else(|| "location".to_string(), |d| devices[d as usize].clone());
        for v in values {
            // Two apps may subscribe to the same event: IoTCheck fires it once per app.
            let mut name = format!("{owner}.{attr}.{}", v.replace([' ', ',', '*'], "_"));
            if events.iter().any(|e| e.name == name) {
                name = format!("{name}.{}", apps[ai.min(apps.len() - 1)].name);
            }
            events.push(EnvEvent {
                name,
                dev,
                attr: attr.clone().into(),
                value: v.into(),
                run: None,
                extractor: false,
                touch: None,
            });
        }
    }
    let mut slot_of = vec![Vec::new(); devices.len()];
    for (i, (d, a)) in slots.iter().enumerate() {
        slot_of[*d as usize].push((a.clone(), i));
    }
    let nslots = slots.len();
    let slot_text = slots.iter().map(|(_, a)| Text::from(a.clone())).collect();
    let device_text = devices.iter().map(|d| Text::from(d.clone())).collect();
    let device_id_text = (0..devices.len()).map(|d| Text::from(format!("device{d}"))).collect();
    let has_cap = |d: &Vec<String>, want: &[&str]| d.iter().any(|c| want.contains(&c.as_str()));
    let phone = device_caps
        .iter()
        .position(|c| has_cap(c, &["mobilePresence"]))
        .or_else(|| device_caps.iter().position(|c| has_cap(c, &["presenceSensor", "beacon"])));
    let dni = phone.map_or_else(|| "device0".to_string(), |d| format!("device{d}"));
    let presence_data = ["0", "1"].map(|p| Text::from(format!("{{\"presence\":\"{p}\",\"dni\":\"{dni}\"}}")));
    let mut model = SmartAppModel {
        apps,
        devices,
        device_caps,
        slots,
        slot_of,
        slot_text,
        device_text,
        device_id_text,
        subs: Vec::new(),
        events,
        unsupported: Vec::new(),
        presence_data,
        left_out: Vec::new(),
        dead: Vec::new(),
        dead_slots: Vec::new(),
        no_ghost: Vec::new(),
        state_reads: Vec::new(),
        guarded: Vec::new(),
        guard_verdicts: Vec::new(),
        props: Default::default(),
        met: Default::default(),
        room: Default::default(),
        servers,
        init: SmartState {
            attrs: init_attrs,
            mode: Text::Static("home"),
            states: Vec::new(),
            // Kept (and copied with each state) only where conflicts are checked: one per
            // attribute slot, then the location mode's.
            writers: vec![(0, Value::Null); if opts.conflicts { nslots + 1 } else { 0 }],
            fired: Vec::new(),
            root: false,
            picks: 0,
        },
        configs: Vec::new(),
        picks: choices::Picks::default(),
        opts,
    };
    model.init.states = vec![Vec::new(); model.apps.len()];
    model.init.fired = vec![0; model.events.len()];
    // The modes a person picks (row 0, the inputs' defaults, installs `init`).
    model.picks = model.person_picks();
    // Installing runs every app, with every ghost.
    model.keep_all_apps();
    // Install every app (IoTCheck runs installed() first): subscriptions, initial state.
    let fresh = model.init.clone();
    let (st, subs) = install(&model, fresh.clone(), &mut unsupported);
    model.init = st;
    model.subs = subs;
    model.unsupported = unsupported;
    // The devices' states at installation: the environment's choice (initial.rs).
    model.choose_configurations(fresh);
    // The physical channels between the apps (`physical.rs`), before the slice keeps their
    // sensing apps; before the properties, which name the location mode's object after the
    // room's slots.
    model.add_room();
    // The properties checked (properties.rs), before the reductions that must count their reads.
    model.attach_properties(home.map(|h| &h.home))?;
    if opts.conflicts {
        model.slice_readers();
    }
    (model.dead_slots, model.no_ghost) = model.unstored_slots();
    model.reset_dead_slots();
    model.state_reads = model.read_state_keys();
    model.drop_unread_keys();
    (model.guarded, model.guard_verdicts) = model.guarded_analysis();
    model.reset_guarded_initial();
    Ok(model)
}

/// Installs every app from `st` (the devices' and the location's states before installation),
/// in order, each running `installed()` (else `initialize()`): the state after, with no last
/// writers (installing is not part of the checked executions), and the subscriptions made.
/// What could not run is added to `unsupported`, once per line.
pub(super) fn install(
    model: &SmartAppModel,
    mut st: SmartState,
    unsupported: &mut Vec<String>,
) -> (SmartState, Vec<Sub>) {
    let mut subs = Vec::new();
    for ai in 0..model.apps.len() {
        let mut cx = Ctx::new(model, &mut st, ai, Vec::new());
        cx.installing = Some(Vec::new());
        let entry = if model.apps[ai].methods.contains_key("installed") { "installed" } else { "initialize" };
        let file = &model.apps[ai].file;
        if let Err(Flow::Error(why, line)) = cx.call_method(ai, entry, Vec::new()) {
            unsupported.push(format!("{file}:{line}: installing stopped: {}", why.trim_start_matches(CONFLICT)));
        }
        let met: Vec<(usize, String)> = cx.unknown.drain(..).map(|(_, l, w)| (l, w)).collect();
        for (line, why) in std::mem::take(&mut cx.problems).into_iter().chain(met) {
            // Said once per line: a subscription on no input is listed already.
            if !unsupported.iter().any(|u| u.starts_with(&format!("{file}:{line}:"))) {
                unsupported.push(format!("{file}:{line}: {why}"));
            }
        }
        let made = cx.installing.take().unwrap_or_default();
        // A subscription in the source that installing did not make (in a branch not taken,
        // or a method `installed()` does not reach), when no other one of that app covers it.
        for c in subscribe_calls(&model.apps[ai].script) {
            let covered = made.iter().any(|s| {
                let attr = c.event.split('.').next().unwrap_or("");
                s.attr == attr
                    || (c.var == "location" && s.dev.is_none() && s.attr != "app")
                    || (c.var == "app" && s.attr == "app")
            });
            let listed = unsupported.iter().any(|u| u.starts_with(&format!("{file}:{}:", c.line)));
            if !covered && !listed && !c.event.is_empty() {
                unsupported.push(format!(
                    "{file}:{}: subscription to `{}` on `{}` not made when the app is installed",
                    c.line, c.event, c.var
                ));
            }
        }
        subs.extend(made);
    }
    // Installing is not part of the checked executions: no conflicts from it.
    st.writers.iter_mut().for_each(|w| *w = (0, Value::Null));
    (st, subs)
}

/// `--conflicts-on`'s value: attribute names (`lock`) or capability attributes
/// (`musicPlayer.level`), comma-separated, each one the device model knows.
pub fn conflict_scope(text: &str) -> Result<crate::model::ConflictScope, String> {
    let names: Vec<&str> = text.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
    if names.is_empty() {
        return Err("--conflicts-on needs at least one attribute".into());
    }
    match names.iter().find(|n| !known_scope_name(n)) {
        Some(bad) => Err(scope_name_error(bad)),
        None => Ok(crate::model::ConflictScope::new(&names)),
    }
}

fn scope_name_error(bad: &str) -> String {
    format!(
        "--conflicts-on: `{bad}` is no device attribute the model knows (give an attribute, e.g. `lock`, or \
capability.attribute, e.g. `musicPlayer.level`)"
    )
}

impl SmartAppModel {
    /// Whether an app's write of `slot` can be a conflict: every slot without `--conflicts-on`,
    /// else those the scope names (see [`crate::model::ConflictScope`]).
    /// The location mode's slot ([`SmartAppModel::mode_slot`]) is `location.mode` (also named
    /// `mode`).
    pub(super) fn in_conflict_scope(&self, slot: usize) -> bool {
        self.opts.conflicts_on.is_none_or(|scope| match self.slots.get(slot) {
            Some((d, attr)) => self.device_caps[*d as usize].iter().any(|cap| scope.contains(cap, attr)),
            None => scope.contains("location", "mode"),
        })
    }

    /// The scope as replay lines give it (empty without one).
    pub(super) fn scope_flag(&self) -> String {
        self.opts.conflicts_on.map(|s| s.flag()).unwrap_or_default()
    }
}
