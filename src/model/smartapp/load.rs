//! Building a system from parsed apps: inputs bound to devices and settings, the environment's
//! events as IoTCheck's Extractor lists them, and every app installed (its subscriptions
//! taken from running `installed()`/`initialize()`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::trace::InputError;

/// Calls `f` on every call expression of a script (top level and methods, inside closures,
/// arguments and maps too), in source order.
pub(super) fn each_call(script: &Script, f: &mut dyn FnMut(&Expr)) {
    pub(super) fn stmts(body: &[Stmt], f: &mut dyn FnMut(&Expr)) {
        for st in body {
            match st {
                Stmt::Expr(e, _) | Stmt::Def(_, Some(e), _) | Stmt::Return(Some(e)) => expr(e, f),
                Stmt::If(c, a, b) => {
                    expr(c, f);
                    stmts(a, f);
                    stmts(b, f);
                }
                Stmt::Block(b) | Stmt::While(_, b) | Stmt::ForIn(_, _, b) | Stmt::For(_, _, _, b) => stmts(b, f),
                Stmt::Switch(_, cases) => cases.iter().for_each(|c| stmts(&c.2, f)),
                Stmt::Try(a, c, fin) => {
                    stmts(a, f);
                    c.iter().for_each(|c| stmts(&c.1, f));
                    stmts(fin, f);
                }
                _ => {}
            }
        }
    }
    pub(super) fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
        match e {
            Expr::Call { target, args, .. } => {
                f(e);
                if let Some(t) = target {
                    expr(t, f);
                }
                for a in args {
                    match a {
                        Arg::Pos(e) | Arg::Named(_, e) => expr(e, f),
                    }
                }
            }
            Expr::Closure(c) => stmts(&c.1, f),
            Expr::Map(m) => m.iter().for_each(|(_, v)| expr(v, f)),
            _ => {}
        }
    }
    stmts(&script.top, f);
    for m in &script.methods {
        stmts(&m.body, f);
    }
}

/// Every `input` of a script: (name, type, options/default).
pub(super) fn inputs(script: &Script) -> Vec<(String, String, Value)> {
    pub(super) fn literal(e: Option<&Expr>) -> Option<Value> {
        match e? {
            Expr::Str(x) => Some(s(x)),
            Expr::Int(i) => Some(Value::Int(*i)),
            Expr::Dec(d) => Some(Value::Dec(*d)),
            Expr::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        }
    }
    let mut out = Vec::new();
    each_call(script, &mut |e| {
        let Expr::Call { target: None, name, args, .. } = e else { return };
        if name != "input" {
            return;
        }
        let mut pos = Vec::new();
        let mut named = HashMap::new();
        for a in args {
            match a {
                Arg::Pos(Expr::Str(x)) => pos.push(x.to_string()),
                Arg::Named(n, v) => {
                    named.insert(n.as_str(), v);
                }
                _ => {}
            }
        }
        let by_name = |key: &str| match named.get(key) {
            Some(Expr::Str(x)) => Some(x.to_string()),
            _ => None,
        };
        let (Some(n), Some(t)) =
            (pos.first().cloned().or_else(|| by_name("name")), pos.get(1).cloned().or_else(|| by_name("type")))
        else {
            return;
        };
        let default = literal(named.get("defaultValue").copied())
            .or_else(|| match named.get("options").copied() {
                Some(Expr::List(l)) => literal(l.first()),
                Some(Expr::Map(m)) => literal(m.first().map(|p| &p.0)),
                _ => None,
            })
            .unwrap_or(Value::Null);
        out.push((n, t, default));
    });
    out
}

/// The value IoTCheck's Extractor gives an input of a non-device type.
pub(super) fn setting_value(ty: &str, default: Value) -> Value {
    if default != Value::Null {
        return default;
    }
    match ty {
        "number" | "decimal" => Value::Int(5),
        "bool" | "boolean" => Value::Bool(true),
        "time" => lit("15:00"),
        "mode" => lit("home"),
        "phone" | "contact" => lit("1234567890"),
        "enum" | "text" | "string" | "password" | "email" => lit("text"),
        _ => Value::Null,
    }
}

/// Subscribe calls in source order (statically): (variable or `location`/`app`, event name).
pub(super) fn subscribe_calls(script: &Script) -> Vec<(String, String)> {
    let mut out = Vec::new();
    each_call(script, &mut |e| {
        let Expr::Call { target: None, name, args, .. } = e else { return };
        if name != "subscribe" {
            return;
        }
        let var = match args.first() {
            Some(Arg::Pos(Expr::Var(v))) => v.clone(),
            Some(Arg::Pos(Expr::Member { name, .. })) => name.clone(),
            _ => String::new(),
        };
        let ev = match args.get(1) {
            Some(Arg::Pos(Expr::Str(x))) if args.len() >= 3 => x.to_string(),
            _ if var == "location" => "location".into(),
            _ if var == "app" => "app".into(),
            _ => String::new(),
        };
        out.push((var, ev));
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
    let mut parsed = Vec::new();
    for f in files {
        let bytes = crate::trace::input::read(f)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(f, "not UTF-8 text"))?;
        let script = groovy::parse(f, text)?;
        parsed.push((f.clone(), script));
    }
    build(parsed, opts)
}

/// The name an app goes by in reports: its file stem.
pub(super) fn app_name(p: &Path) -> String {
    p.file_stem().map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into_owned())
}

pub(super) fn build(parsed: Vec<(PathBuf, Script)>, opts: SmartAppOptions) -> Result<SmartAppModel, InputError> {
    if parsed.len() > 250 {
        return Err(InputError::file(&parsed[0].0, "too many apps in one system (at most 250)"));
    }
    let mut devices: Vec<String> = Vec::new();
    let mut apps = Vec::new();
    for (path, script) in parsed {
        let mut settings = FxHashMap::default();
        for (name, ty, default) in inputs(&script) {
            let v = if ty.starts_with("capability.") || ty.starts_with("device.") {
                let cap = ty.split('.').nth(1).unwrap_or("").to_string();
                let d = devices.iter().position(|c| *c == cap).unwrap_or_else(|| {
                    devices.push(cap.clone());
                    devices.len() - 1
                });
                Value::Dev(d as u16)
            } else {
                setting_value(&ty, default)
            };
            settings.entry(name).or_insert(v);
        }
        let methods = script.methods.iter().enumerate().map(|(i, m)| (m.name.clone(), i)).collect();
        apps.push(App { name: app_name(&path), script, methods, settings });
    }
    // Attribute slots: each device's capability attributes, plus any subscribed attribute.
    let mut slots: Vec<(u16, String)> = Vec::new();
    let mut init_attrs = Vec::new();
    for (d, cap) in devices.iter().enumerate() {
        for (a, v) in capability_attrs(cap) {
            slots.push((d as u16, a.to_string()));
            init_attrs.push(match v.parse::<i64>() {
                Ok(_) => s(v),
                Err(_) => s(v),
            });
        }
    }
    // The environment's events, as IoTCheck's Extractor lists them.
    let mut events = Vec::new();
    // Grouped by event type and device (None: location, app, sun): a subscription to a value
    // (`contact.open`) adds that value, one without adds every value of the type. Counted so,
    // the pairs' event numbers match the paper's Evt. (see docs/smartapps.md).
    let mut groups: Vec<(String, Option<u16>, Vec<String>, usize)> = Vec::new();
    for (ai, app) in apps.iter().enumerate() {
        for h in opening_schedule(&app.script) {
            events.push(EnvEvent {
                name: format!("schedule.{}.{h}", app.name),
                dev: None,
                attr: Text::Static("schedule"),
                value: Text::Static(""),
                run: Some((ai, h)),
            });
        }
        for (var, ev) in subscribe_calls(&app.script) {
            if ev == "unlock" || ev.is_empty() {
                continue;
            }
            let ty = event_type(&ev);
            let value = ev.split_once('.').map(|(_, v)| v.to_string()).filter(|_| !ev.starts_with("water."));
            let dev = match app.settings.get(&var) {
                Some(Value::Dev(d)) if var != "location" => Some(*d),
                _ => None,
            };
            // A subscription to one value counts for its app alone; a whole event type once for
            // all apps (what reproduces the paper's Evt., docs/smartapps.md).
            let owner_app = if value.is_some() { ai } else { usize::MAX };
            let values: Vec<String> = match value {
                Some(v) => vec![v],
                None => event_values(&ty).iter().map(|v| v.to_string()).collect(),
            };
            match groups.iter_mut().find(|g| g.0 == ty && g.1 == dev && g.3 == owner_app) {
                Some(g) => {
                    for v in values {
                        if !g.2.contains(&v) {
                            g.2.push(v);
                        }
                    }
                }
                None => groups.push((ty, dev, values, owner_app)),
            }
        }
    }
    for (ty, dev, values, ai) in groups {
        let attr = match ty.as_str() {
            "water.dry" | "water.wet" => "water".to_string(),
            "doorState" => "door".to_string(),
            "location" => "mode".to_string(),
            t => t.to_string(),
        };
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
            events.push(EnvEvent { name, dev, attr: attr.clone().into(), value: v.into(), run: None });
        }
    }
    let mut slot_of = vec![Vec::new(); devices.len()];
    for (i, (d, a)) in slots.iter().enumerate() {
        slot_of[*d as usize].push((a.clone(), i));
    }
    let nslots = slots.len();
    let slot_text = slots.iter().map(|(_, a)| Text::from(a.clone())).collect();
    let device_text = devices.iter().map(|d| Text::from(d.clone())).collect();
    let mut model = SmartAppModel {
        apps,
        devices,
        slots,
        slot_of,
        slot_text,
        device_text,
        subs: Vec::new(),
        events,
        init: SmartState {
            attrs: init_attrs,
            mode: Text::Static("home"),
            states: Vec::new(),
            // Kept (and copied with each state) only where conflicts are checked.
            writers: vec![(0, Value::Null); if opts.conflicts { nslots } else { 0 }],
            fired: Vec::new(),
        },
        opts,
    };
    model.init.states = vec![Vec::new(); model.apps.len()];
    model.init.fired = vec![0; model.events.len()];
    // Install every app (IoTCheck runs installed() first): subscriptions, initial state.
    let mut st = model.init.clone();
    let mut subs = Vec::new();
    for ai in 0..model.apps.len() {
        let mut cx = Ctx {
            m: &model,
            st: &mut st,
            acc: Vec::new(),
            app: ai,
            vars: Vec::with_capacity(16),
            base: 0,
            text: String::new(),
            running: Vec::new(),
            budget: 200_000,
            depth: 0,
            line: 0,
            installing: Some(Vec::new()),
            conflict: None,
        };
        let entry = if model.apps[ai].methods.contains_key("installed") { "installed" } else { "initialize" };
        let _ = cx.call_method(ai, entry, Vec::new());
        subs.extend(cx.installing.take().unwrap_or_default());
    }
    // Installing is not part of the checked executions: no conflicts from it.
    st.writers.iter_mut().for_each(|w| *w = (0, Value::Null));
    model.init = st;
    model.subs = subs;
    Ok(model)
}
