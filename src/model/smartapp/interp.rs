//! The interpreter of the handlers' Groovy: statements, expressions, variables in one stack of
//! scopes, member access on the platform's objects (state, settings, location, devices,
//! events), assignments, calls of app methods and of the platform's free functions.

use super::*;

impl Ctx<'_> {
    pub(super) fn lookup(&mut self, name: &str) -> Option<Value> {
        self.local(name).map(|p| p.1.clone())
    }

    /// The innermost variable named `name` the running method sees.
    fn local(&self, name: &str) -> Option<&(Name, Value)> {
        self.vars[self.base..].iter().rev().find(|(n, _)| **n == *name)
    }

    pub(super) fn set_local(&mut self, name: &str, v: Value) -> bool {
        match self.vars[self.base..].iter_mut().rev().find(|(n, _)| **n == *name) {
            Some(slot) => {
                slot.1 = v;
                true
            }
            None => false,
        }
    }

    /// A variable of the innermost scope.
    pub(super) fn declare(&mut self, name: Name, v: Value) {
        self.vars.push((name, v));
    }

    /// Binds parameters to arguments (missing ones null, extra ones dropped).
    pub(super) fn bind(&mut self, params: &[Name], args: Args) {
        let mut args = args.into_iter();
        for p in params {
            self.vars.push((p.clone(), args.next().unwrap_or(Value::Null)));
        }
    }

    pub(super) fn call_method(&mut self, app: usize, name: &str, args: impl Into<Args>) -> R<Value> {
        self.call_method_with(app, name, args.into())
    }

    fn call_method_with(&mut self, app: usize, name: &str, args: Args) -> R<Value> {
        let Some(&mi) = self.m.apps[app].methods.get(name) else { return Ok(Value::Null) };
        self.enter_method(app, mi, name, args)
    }

    /// Runs method `mi` (named `name`) of `app`.
    fn enter_method(&mut self, app: usize, mi: usize, name: &str, args: Args) -> R<Value> {
        let m = self.m;
        if !m.apps[app].callable[mi] {
            // A name the source does not write out (`callable.rs`): not followed, and said.
            let why = format!(
                "method `{name}` entered by a name the model does not follow (built, not written): not modelled"
            );
            return Err(Flow::Error(why, self.line));
        }
        // A method already running is not entered again (timers calling themselves).
        if self.running.contains(&(app, mi)) || self.running.len() > 40 {
            return Ok(Value::Null);
        }
        let method: &Method = &m.apps[app].script.methods[mi];
        let saved = (self.app, self.base);
        self.app = app;
        self.base = self.vars.len();
        self.bind(&method.params, args);
        self.running.push((app, mi));
        let r = self.block(&method.body);
        self.running.pop();
        self.vars.truncate(self.base);
        self.app = saved.0;
        self.base = saved.1;
        match r {
            Ok(v) => Ok(v),
            Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Error(a, b)) => Err(Flow::Error(a, b)),
            Err(_) => Ok(Value::Null),
        }
    }

    pub(super) fn call_closure(&mut self, c: &Arc<(Vec<Name>, Vec<Stmt>)>, args: impl Into<Args>) -> R<Value> {
        self.call_closure_with(c, args.into())
    }

    fn call_closure_with(&mut self, c: &Arc<(Vec<Name>, Vec<Stmt>)>, args: Args) -> R<Value> {
        let mark = self.vars.len();
        self.bind(&c.0, args);
        let r = self.block(&c.1);
        self.vars.truncate(mark);
        match r {
            Ok(v) | Err(Flow::Return(v)) => Ok(v),
            Err(Flow::Error(a, b)) => Err(Flow::Error(a, b)),
            Err(_) => Ok(Value::Null),
        }
    }

    /// Runs statements; the value is the last expression statement's (Groovy's implicit return).
    pub(super) fn block(&mut self, body: &[Stmt]) -> R<Value> {
        let mut last = Value::Null;
        for st in body {
            last = self.stmt(st)?;
        }
        Ok(last)
    }

    pub(super) fn scoped(&mut self, body: &[Stmt]) -> R<Value> {
        let mark = self.vars.len();
        let r = self.block(body);
        self.vars.truncate(mark);
        r
    }

    /// One pass of a loop body: whether the loop goes on (not after `break`).
    pub(super) fn iteration(&mut self, body: &[Stmt]) -> R<bool> {
        if self.budget == 0 {
            return self.err("loop ran too long");
        }
        match self.scoped(body) {
            Err(Flow::Break) => Ok(false),
            Err(Flow::Continue) | Ok(_) => Ok(true),
            Err(f) => Err(f),
        }
    }

    pub(super) fn stmt(&mut self, st: &Stmt) -> R<Value> {
        if self.budget == 0 {
            return self.err("handler ran too long (step budget exhausted: a loop that does not end?)");
        }
        self.budget -= 1;
        match st {
            Stmt::Expr(e, line) => {
                self.line = *line;
                self.expr(e)
            }
            Stmt::Def(n, init, line) => {
                self.line = *line;
                let v = match init {
                    Some(e) => self.expr(e)?,
                    None => Value::Null,
                };
                self.declare(n.clone(), v);
                Ok(Value::Null)
            }
            Stmt::If(c, a, b, line) => {
                // What the condition reads (a sensor, a device's state) is read at this line.
                self.line = *line;
                if self.expr(c)?.truthy() {
                    self.scoped(a)
                } else {
                    self.scoped(b)
                }
            }
            Stmt::While(c, body) => {
                while self.expr(c)?.truthy() {
                    if !self.iteration(body)? {
                        break;
                    }
                }
                Ok(Value::Null)
            }
            Stmt::For(init, cond, update, body) => {
                let mark = self.vars.len();
                let r = (|| -> R<Value> {
                    for s in init {
                        self.stmt(s)?;
                    }
                    loop {
                        if let Some(c) = cond {
                            if !self.expr(c)?.truthy() {
                                break;
                            }
                        }
                        if !self.iteration(body)? {
                            break;
                        }
                        for u in update {
                            self.expr(u)?;
                        }
                    }
                    Ok(Value::Null)
                })();
                self.vars.truncate(mark);
                r
            }
            Stmt::ForIn(n, it, body) => {
                let items = self.expr(it)?;
                for x in items.items_ref().iter() {
                    let mark = self.vars.len();
                    self.declare(n.clone(), x.clone());
                    let r = self.block(body);
                    self.vars.truncate(mark);
                    match r {
                        Err(Flow::Break) => break,
                        Err(Flow::Continue) | Ok(_) => {}
                        Err(f) => return Err(f),
                    }
                }
                Ok(Value::Null)
            }
            Stmt::Switch(v, cases) => {
                let v = self.expr(v)?;
                let mut matched = false;
                for (vals, default, body) in cases {
                    if !matched {
                        for c in vals {
                            let cv = self.expr(c)?;
                            let hit = match &cv {
                                // `case ~/re/:` matches a text the whole pattern matches
                                // (Groovy's `Pattern.isCase`).
                                _ if matches!(c, Expr::Unary("~", _)) => self.pattern_case(&cv, &v)?,
                                Value::List(l) => l.iter().any(|x| loose_eq(x, &v)),
                                _ => loose_eq(&cv, &v),
                            };
                            if hit {
                                matched = true;
                            }
                        }
                        matched |= *default;
                    }
                    if matched {
                        match self.scoped(body) {
                            Err(Flow::Break) => return Ok(Value::Null),
                            Err(f) => return Err(f),
                            Ok(_) => {}
                        }
                    }
                }
                Ok(Value::Null)
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.expr(e)?,
                    None => Value::Null,
                };
                Err(Flow::Return(v))
            }
            Stmt::Break => Err(Flow::Break),
            Stmt::Continue => Err(Flow::Continue),
            Stmt::Block(b) => self.scoped(b),
            Stmt::Try(body, catches, fin) => {
                let r = self.scoped(body);
                let r = match r {
                    Err(Flow::Error(m, l)) if m.starts_with(CONFLICT) || m.starts_with(properties::PROPERTY) => {
                        Err(Flow::Error(m, l))
                    }
                    Err(Flow::Error(_, _)) if !catches.is_empty() => {
                        let mark = self.vars.len();
                        self.declare(catches[0].0.clone(), lit("exception"));
                        let r = self.block(&catches[0].1);
                        self.vars.truncate(mark);
                        r
                    }
                    r => r,
                };
                self.scoped(fin)?;
                r
            }
            Stmt::Throw(_) => self.err("exception thrown by the app"),
        }
    }

    /// The values of a call's arguments, in order; named ones (`f(a: 1)`) are passed as
    /// Groovy passes them, as one leading map.
    pub(super) fn args(&mut self, args: &[Arg]) -> R<Args> {
        let mut pos = Args::new();
        let mut named = Vec::new();
        for a in args {
            match a {
                Arg::Pos(e) => pos.push(self.expr(e)?),
                Arg::Named(n, e) => named.push((s(n), self.expr(e)?)),
            }
        }
        if !named.is_empty() {
            pos.insert(0, map(named));
        }
        Ok(pos)
    }

    /// Evaluates arguments whose values nothing reads, in order, for their effects (accesses,
    /// calls, errors) only.
    pub(super) fn discard_args(&mut self, args: &[Arg]) -> R<()> {
        for a in args {
            match a {
                Arg::Pos(e) | Arg::Named(_, e) => self.discard(e)?,
            }
        }
        Ok(())
    }

    /// `expr` for a value nobody reads: interpolations and operators (pure once their operands
    /// are evaluated) are not built, their operands still run.
    pub(super) fn discard(&mut self, e: &Expr) -> R<()> {
        match e {
            Expr::GStr(parts) => {
                for p in parts {
                    if let GPart::Expr(e) = p {
                        self.discard(e)?;
                    }
                }
                Ok(())
            }
            Expr::Binary(op, a, b) if *op != "&&" && *op != "||" => {
                self.discard(a)?;
                self.discard(b)
            }
            _ => self.expr(e).map(drop),
        }
    }

    pub(super) fn expr(&mut self, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Null => Value::Null,
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Int(i) => Value::Int(*i),
            Expr::Dec(d) => Value::Dec(*d),
            Expr::Str(x) => Value::Str(Text::Shared(x.clone())),
            Expr::GStr(parts) => {
                // An interpolation inside takes an empty buffer (this one is out meanwhile).
                let mut out = std::mem::take(&mut self.text);
                out.clear();
                out.reserve(64);
                for p in parts {
                    match p {
                        GPart::Lit(l) => out.push_str(l),
                        GPart::Expr(e) => self.expr(e)?.text_into(&mut out),
                    }
                }
                let v = Value::Str(Text::Shared(out.as_str().into()));
                self.text = out;
                v
            }
            Expr::Var(n) => self.var(n)?,
            Expr::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.expr(i)?);
                }
                list(out)
            }
            Expr::Map(pairs) => {
                let mut out = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    let k = self.expr(k)?;
                    let v = self.expr(v)?;
                    map_put(&mut out, k, v);
                }
                map(out)
            }
            Expr::Member { obj, name, spread } => {
                // A field of a local map (`evt.value`), read in place: what `member` gives a map
                // holding the key, without copying the map's reference in and out.
                if let (Expr::Var(n), false) = (obj.as_ref(), *spread) {
                    let local = self.local(n);
                    if let Some((_, Value::Map(m))) = local {
                        if let Some(v) = map_get_str(m, name) {
                            return Ok(v.clone());
                        }
                    }
                }
                let o = self.expr(obj)?;
                if *spread {
                    let mut out = Vec::new();
                    for x in o.items() {
                        out.push(self.member(&x, name)?);
                    }
                    list(out)
                } else {
                    self.member(&o, name)?
                }
            }
            Expr::Index(o, i) => {
                let o = self.expr(o)?;
                let i = self.expr(i)?;
                index(&o, &i, self)
            }
            Expr::Call { target, name, args, spread } => self.call(target.as_deref(), name, args, *spread)?,
            Expr::Closure(c) => Value::Closure(c.clone()),
            Expr::Unary(op, a) => {
                let v = self.expr(a)?;
                match *op {
                    "!" => Value::Bool(!v.truthy()),
                    "-" => match v {
                        Value::Int(i) => Value::Int(i.wrapping_neg()),
                        v => v.num().map_or(Value::Null, |f| Value::Dec(-f)),
                    },
                    _ => v,
                }
            }
            Expr::IncDec(op, t, post) => {
                let old = self.expr(t)?;
                let new = arith(op, &old, &Value::Int(1));
                self.assign(t, new.clone())?;
                if *post {
                    old
                } else {
                    new
                }
            }
            Expr::Binary(op, a, b) => {
                if *op == "&&" {
                    return Ok(Value::Bool(self.expr(a)?.truthy() && self.expr(b)?.truthy()));
                }
                if *op == "||" {
                    return Ok(Value::Bool(self.expr(a)?.truthy() || self.expr(b)?.truthy()));
                }
                let x = self.expr(a)?;
                if let (&"in", Expr::List(items)) = (op, b.as_ref()) {
                    // `x in [a, b]`: each item compared as it is evaluated, no list built.
                    let mut hit = false;
                    for i in items {
                        hit |= loose_eq(&self.expr(i)?, &x);
                    }
                    return Ok(Value::Bool(hit));
                }
                let y = self.expr(b)?;
                binary(op, &x, &y)
            }
            Expr::Ternary(c, a, b) => {
                if self.expr(c)?.truthy() {
                    self.expr(a)?
                } else {
                    self.expr(b)?
                }
            }
            Expr::Elvis(a, b) => {
                let v = self.expr(a)?;
                if v.truthy() {
                    v
                } else {
                    self.expr(b)?
                }
            }
            Expr::Assign { op, target, value } => {
                let v = self.expr(value)?;
                let v = if *op == "=" {
                    v
                } else {
                    let old = self.expr(target)?;
                    binary(&op[..op.len() - 1], &old, &v)
                };
                self.assign(target, v.clone())?;
                v
            }
            Expr::Range(a, b, incl) => {
                let (x, y) = (self.expr(a)?.num().unwrap_or(0.0) as i64, self.expr(b)?.num().unwrap_or(0.0) as i64);
                let hi = if *incl { y } else { y - 1 };
                list((x..=hi.min(x + 10_000)).map(Value::Int).collect())
            }
            Expr::Cast(a, ty) => {
                let v = self.expr(a)?;
                match ty.as_str() {
                    "Integer" | "int" | "Long" | "long" => v.num().map_or(Value::Null, |f| Value::Int(f as i64)),
                    "Double" | "double" | "Float" | "float" | "BigDecimal" => v.num().map_or(Value::Null, Value::Dec),
                    "String" => Value::Str(v.text().into()),
                    _ => v,
                }
            }
            Expr::New(ty, args) => match ty.as_str() {
                "Date" => Value::Int(NOW),
                // The day of the week (`daysOk`, "only on certain days", in 23 apps): the one
                // pattern whose text a guard compares with an input; other patterns stay null.
                "SimpleDateFormat" | "java.text.SimpleDateFormat" if matches!(args.first().map(|a| a.value()), Some(Expr::Str(p)) if &**p == "EEEE") => {
                    Value::Obj("weekday")
                }
                "ArrayList" | "LinkedList" | "HashSet" => list(Vec::new()),
                "HashMap" | "LinkedHashMap" => map(Vec::new()),
                t if t.ends_with("JsonSlurper") => Value::Obj("json"),
                "Random" | "java.util.Random" => Value::Obj("random"),
                _ => Value::Null,
            },
        })
    }

    /// Whether `v`'s text matches the whole of the pattern `p` (a `case ~/re/:` of a `switch`).
    fn pattern_case(&self, p: &Value, v: &Value) -> R<bool> {
        match regex_lite::Regex::new(&format!("^(?:{})$", p.text())) {
            Ok(re) => Ok(!matches!(v, Value::Null) && re.is_match(&v.text())),
            Err(_) => self.err(format!("pattern `{}` is no regular expression the model reads", p.text())),
        }
    }

    /// The running app's input `name`: the configuration's pick for a varied mode input
    /// (`choices.rs`), else the value bound at load.
    pub(super) fn setting(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.m.picks.input(self.app, name, self.st.picks) {
            return Some(v);
        }
        self.m.apps[self.app].settings.get(name).cloned()
    }

    pub(super) fn var(&mut self, n: &str) -> R<Value> {
        if let Some(v) = self.lookup(n) {
            return Ok(v);
        }
        if let Some(v) = self.setting(n) {
            return Ok(v);
        }
        Ok(match n {
            "state" | "atomicState" => Value::Obj("state"),
            "location" => Value::Obj("location"),
            "log" => Value::Obj("log"),
            "app" => Value::Obj("app"),
            "settings" => Value::Obj("settings"),
            "Math" => Value::Obj("Math"),
            n if builtins::class_object(n).is_some() => builtins::class_object(n).unwrap_or(Value::Null),
            _ => {
                if self.m.apps[self.app].methods.contains_key(n) {
                    // A method named as a value (a handler reference).
                    return Ok(Value::Str(n.to_string().into()));
                }
                // Groovy reads a property `allOk` through its getter `getAllOk()`.
                let getter = callable::getter_name(n);
                if self.m.apps[self.app].methods.contains_key(getter.as_str()) {
                    let app = self.app;
                    return self.call_method(app, &getter, Args::new());
                }
                Value::Null
            }
        })
    }

    /// A key of the running app's `state`, as Groovy reads it (a reserved key, `timers.rs`, is
    /// no key of the app's: null).
    pub(super) fn state_get(&mut self, key: &str) -> Value {
        if timers::is_reserved(key) {
            return Value::Null;
        }
        self.state_fetch(key)
    }

    /// A key of the running app's `state`, reserved keys included.
    pub(super) fn state_fetch(&mut self, key: &str) -> Value {
        let o = self.m.state_object(self.app);
        self.touch(o, false);
        self.st.states[self.app].iter().find(|(k, _)| k == key).map_or(Value::Null, |(_, v)| v.clone())
    }

    /// Stores a key of the running app's `state` as Groovy does (a reserved key, `timers.rs`, is
    /// no key of the app's: nothing is stored).
    pub(super) fn state_set(&mut self, key: &str, v: Value) {
        // A key no code of the app reads is not stored, and its write touches nothing (`dead.rs`).
        if timers::is_reserved(key)
            || self.m.state_reads.get(self.app).is_some_and(|r| r.as_ref().is_some_and(|r| !r.contains(key)))
        {
            return;
        }
        self.state_store(key, v)
    }

    /// Stores a key of the running app's `state`, reserved keys included (never dropped by the
    /// reductions: their key sets hold the keys Groovy names).
    pub(super) fn state_store(&mut self, key: &str, v: Value) {
        let o = self.m.state_object(self.app);
        let st = &mut self.st.states[self.app];
        let at = st.iter().position(|(k, _)| k == key);
        // Storing the value a key already has (null for a key never set: reads cannot tell
        // the two apart) leaves the state as it was, and is recorded as a read.
        let same = at.map_or(v == Value::Null, |i| st[i].1 == v);
        self.acc.push(Access { object: o, write: !same });
        if same {
            return;
        }
        // A key holding null is not stored, so that equal states have one encoding.
        match (at, v) {
            (Some(i), Value::Null) => {
                st.remove(i);
            }
            (Some(i), v) => st[i].1 = v,
            (None, v) => {
                st.push((key.to_string().into(), v));
                st.sort_by(|a, b| a.0.cmp(&b.0));
            }
        }
    }

    pub(super) fn member(&mut self, o: &Value, name: &str) -> R<Value> {
        Ok(match o {
            Value::Obj("state") => self.state_get(name),
            Value::Obj("settings") => self.setting(name).unwrap_or(Value::Null),
            Value::Obj("location") => match name {
                "mode" | "currentMode" => {
                    let o = self.m.mode_object();
                    self.touch(o, false);
                    Value::Str(self.st.mode.clone())
                }
                "modes" => list(["home", "away", "night"].iter().map(|m| map(vec![(lit("name"), s(m))])).collect()),
                "contactBookEnabled" => Value::Bool(false),
                "name" => lit("home"),
                "helloHome" => Value::Obj("helloHome"),
                "timeZone" | "zipCode" => Value::Null,
                "latitude" | "longitude" => Value::Dec(33.6),
                _ => Value::Null,
            },
            Value::Obj("app") => match name {
                "label" | "name" => s(&self.m.apps[self.app].name),
                "id" => lit("appID"),
                _ => Value::Null,
            },
            Value::Dev(d) => {
                let d = *d;
                if let Some(a) = name.strip_prefix("current") {
                    // `currentSwitch` reads `switch`: the slot found by comparing, not by
                    // building the lower-cased name on every read.
                    return Ok(
                        match self.m.slot_of.get(d as usize).and_then(|s| s.iter().find(|(x, _)| is_lower_first(x, a)))
                        {
                            Some(&(_, slot)) => {
                                self.touch(slot as u32, false);
                                self.room_sensed(slot);
                                self.st.attrs[slot].clone()
                            }
                            None => Value::Null,
                        },
                    );
                }
                if let Some(a) = name.strip_suffix("State") {
                    let v = self.attr(d, a);
                    return Ok(map(vec![
                        (lit("value"), v),
                        (lit("name"), s(a)),
                        (lit("date"), Value::Int(STATE_SINCE)),
                    ]));
                }
                match name {
                    "displayName" | "label" | "name" => s(&format!("{} device", self.m.devices[d as usize])),
                    "id" | "deviceNetworkId" => Value::Str(self.m.device_id_text[d as usize].clone()),
                    "size" => Value::Int(1),
                    _ => {
                        if self.m.slot(d, name).is_some() {
                            self.attr(d, name)
                        } else {
                            Value::Null
                        }
                    }
                }
            }
            Value::Map(m) => match map_get_str(m, name) {
                Some(v) => v.clone(),
                None => {
                    // Fields of an event derived from its value (an `evt` map has `value`).
                    let value = map_get_str(m, "value").cloned().unwrap_or(Value::Null);
                    let num = value.num();
                    match name {
                        "size" => Value::Int(m.len() as i64),
                        "doubleValue" | "floatValue" | "numericValue" | "numberValue" => {
                            num.map_or(Value::Null, Value::Dec)
                        }
                        "integerValue" | "longValue" => num.map_or(Value::Null, |f| Value::Int(f as i64)),
                        "stringValue" => s(&value.text()),
                        "isStateChange" | "physical" | "isPhysical" => Value::Bool(true),
                        "digital" | "isDigital" => Value::Bool(false),
                        "descriptionText" | "linkText" => map_get_str(m, "displayName").cloned().unwrap_or(Value::Null),
                        "date" | "dateValue" => Value::Int(NOW),
                        "rawDateCreated" => map_get_str(m, "date").cloned().unwrap_or(Value::Int(NOW)),
                        "source" => lit("DEVICE"),
                        "deviceId" | "id" => lit("deviceID0"),
                        "jsonData" => parse_json(&map_get_str(m, "data").map_or_else(String::new, Value::text)),
                        "data" => lit("{}"),
                        _ => Value::Null,
                    }
                }
            },
            Value::List(l) => match name {
                "size" => Value::Int(l.len() as i64),
                "first" => l.first().cloned().unwrap_or(Value::Null),
                "last" => l.last().cloned().unwrap_or(Value::Null),
                _ => {
                    // GPath: a property of every element.
                    let mut out = Vec::new();
                    for x in l.clone().iter() {
                        out.push(self.member(&x, name)?);
                    }
                    list(out)
                }
            },
            Value::Int(t) if name == "time" => Value::Int(*t),
            _ => Value::Null,
        })
    }

    /// Writes `v` where `target` names (a local, a state field, a map entry, a list item).
    pub(super) fn assign(&mut self, target: &Expr, v: Value) -> R<()> {
        match target {
            Expr::Var(n) => {
                if !self.set_local(n, v.clone()) {
                    // Groovy script binding: an undeclared name becomes a variable.
                    self.declare(n.as_str().into(), v);
                }
                Ok(())
            }
            Expr::Member { obj, name, .. } => {
                if let Expr::Var(o) = obj.as_ref() {
                    if (o == "state" || o == "atomicState") && self.lookup(o).is_none() {
                        self.state_set(name, v);
                        return Ok(());
                    }
                    if o == "location" && name == "mode" && self.lookup(o).is_none() {
                        let app = self.app;
                        return self.set_mode(v.text().into(), Some(app));
                    }
                }
                let mut o = self.expr(obj)?;
                if let Value::Map(m) = &mut o {
                    map_put(Arc::make_mut(m), s(name), v);
                    return self.assign(obj, o);
                }
                Ok(())
            }
            Expr::Index(obj, i) => {
                if let Expr::Var(o) = obj.as_ref() {
                    if (o == "state" || o == "atomicState") && self.lookup(o).is_none() {
                        let k = self.expr(i)?.text();
                        self.state_set(&k, v);
                        return Ok(());
                    }
                }
                let mut o = self.expr(obj)?;
                let i = self.expr(i)?;
                match &mut o {
                    Value::Map(m) => map_put(Arc::make_mut(m), i, v),
                    Value::List(l) => {
                        let l = Arc::make_mut(l);
                        let k = i.num().unwrap_or(0.0) as usize;
                        if k < 10_000 {
                            if l.len() <= k {
                                l.resize(k + 1, Value::Null);
                            }
                            l[k] = v;
                        }
                    }
                    _ => return Ok(()),
                }
                self.assign(obj, o)
            }
            _ => Ok(()),
        }
    }

    pub(super) fn call(&mut self, target: Option<&Expr>, name: &str, args: &[Arg], spread: bool) -> R<Value> {
        let Some(t) = target else { return self.call_free(name, args) };
        let o = self.expr(t)?;
        if o == Value::Obj("log") && !spread {
            // Logging returns null whatever it is given: its arguments run for their effects only.
            self.discard_args(args)?;
            return Ok(Value::Null);
        }
        if spread {
            let a = self.args(args)?;
            let mut out = Vec::new();
            for x in o.items() {
                out.push(self.method(&x, name, a.clone(), Some(t))?);
            }
            return Ok(list(out));
        }
        let mut a = self.args(args)?;
        if name == groovy::DYNAMIC && !a.is_empty() {
            let n = a.remove(0).text();
            return self.method(&o, &n, a, Some(t));
        }
        self.method(&o, name, a, Some(t))
    }

    pub(super) fn call_free(&mut self, name: &str, args: &[Arg]) -> R<Value> {
        if let Some((_, Value::Closure(c))) = self.local(name) {
            let c = c.clone();
            let a = self.args(args)?;
            return self.call_closure(&c, a);
        }
        // A request with a response closure: the closure runs with the server's answer (`http.rs`).
        if http::HTTP_CALLS.contains(&name) && !self.m.apps[self.app].methods.contains_key(name) {
            if let Some(c) = http::response_closure(args) {
                return self.http_request(args, c);
            }
        }
        // Notifications, HTTP and events sent to the cloud do nothing (the match below gives
        // them null), so their messages and bodies are not built.
        if matches!(
            name,
            "sendPush"
                | "sendPushMessage"
                | "sendSms"
                | "sendSmsMessage"
                | "sendNotification"
                | "sendNotificationEvent"
                | "sendNotificationToContacts"
                | "httpPost"
                | "httpPostJson"
                | "httpGet"
                | "httpPut"
                | "httpPutJson"
                | "httpDelete"
        ) && !self.m.apps[self.app].methods.contains_key(name)
        {
            // A message to the user is an act (`physical.rs`); HTTP is not.
            if name.starts_with("send") {
                self.room_act();
            }
            self.discard_args(args)?;
            return Ok(Value::Null);
        }
        let a = self.args(args)?;
        let app = self.app;
        if let Some(&mi) = self.m.apps[app].methods.get(name) {
            return self.enter_method(app, mi, name, a);
        }
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        Ok(match name {
            "subscribe" => {
                self.subscribe(&a);
                Value::Null
            }
            // A timer is set pending; the hub runs its method later, as an event (`timers.rs`).
            n if timers::timer_handler_position(n).is_some() => {
                self.set_timer(n, &a)?;
                Value::Null
            }
            "unschedule" => {
                self.unschedule(&a);
                Value::Null
            }
            "setLocationMode" => {
                self.set_mode(arg(0).text().into(), Some(app))?;
                Value::Null
            }
            "now" => Value::Int(NOW),
            "timeToday" | "timeTodayAfter" => Value::Int(NOW),
            "timeOfDayIsBetween" => Value::Bool(true),
            "getSunriseAndSunset" => map(vec![(lit("sunrise"), Value::Int(NOW)), (lit("sunset"), Value::Int(NOW))]),
            "canSchedule" => Value::Bool(true),
            "getTemperatureScale" => lit("F"),
            "parseJson" => parse_json(&arg(0).text()),
            "toDateTime" => Value::Int(NOW),
            "location" => Value::Obj("location"),
            _ => self.unknown_function(name),
        })
    }

    /// Methods on values (devices, collections, strings, numbers, objects).
    pub(super) fn method(&mut self, o: &Value, name: &str, a: Args, path: Option<&Expr>) -> R<Value> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        let app = self.app;
        match o {
            Value::Obj("log") => return Ok(Value::Null),
            Value::Obj("location") => {
                return Ok(match name {
                    "setMode" => {
                        self.set_mode(arg(0).text().into(), Some(app))?;
                        Value::Null
                    }
                    "currentState" | "currentValue" => {
                        let o = self.m.mode_object();
                        self.touch(o, false);
                        Value::Str(self.st.mode.clone())
                    }
                    _ => self.unknown_method(o, name),
                })
            }
            // A routine (Hello Home phrase) sets the mode the person configured it with, if any:
            // the configuration's pick for this call site (`choices.rs`). Given no phrase
            // (an unset optional input), nothing runs. The routines are a hub's four defaults.
            Value::Obj("helloHome") => {
                return Ok(match name {
                    "execute" if !matches!(arg(0), Value::Null) => {
                        if let Some(mode) = self.m.picks.routine(app, self.line, self.st.picks) {
                            self.set_mode(mode, Some(app))?;
                        }
                        Value::Null
                    }
                    "getPhrases" => list(
                        choices::ROUTINES
                            .iter()
                            .enumerate()
                            .map(|(i, r)| map(vec![(lit("id"), Value::Int(i as i64)), (lit("label"), lit(r))]))
                            .collect(),
                    ),
                    _ => Value::Null,
                });
            }
            Value::Obj("json") => {
                return Ok(match name {
                    "parseText" | "parse" => parse_json(&arg(0).text()),
                    _ => self.unknown_method(o, name),
                })
            }
            Value::Obj(class) if builtins::class_object(class).is_some() => {
                return Ok(self.class_method(class, name, &a))
            }
            // A random number is one fixed value of its range, the middle (drawing it would be a
            // choice of the environment the model does not make): Hue Party Mode's colour.
            Value::Obj("random") => {
                let n = arg(0).num().unwrap_or(0.0);
                return Ok(match name {
                    "nextInt" | "nextLong" if n >= 1.0 => Value::Int(n as i64 / 2),
                    "nextInt" | "nextLong" => Value::Int(0),
                    "nextDouble" | "nextFloat" => Value::Dec(0.5),
                    "nextBoolean" => Value::Bool(false),
                    _ => self.unknown_method(o, name),
                });
            }
            // A date's day of the week, in English as Java prints it; the time zone (set by
            // `setTimeZone`) is taken as UTC: the hub's day is one fixed day, as its clock is.
            Value::Obj("weekday") => {
                return Ok(match name {
                    "format" => match arg(0).num() {
                        Some(ms) => s(weekday(ms as i64)),
                        None => Value::Null,
                    },
                    "setTimeZone" => Value::Null,
                    _ => self.unknown_method(o, name),
                });
            }
            Value::Obj("Math") => {
                let x = arg(0).num().unwrap_or(0.0);
                let y = arg(1).num().unwrap_or(0.0);
                return Ok(match name {
                    "abs" => Value::Dec(x.abs()),
                    "max" => Value::Dec(x.max(y)),
                    "min" => Value::Dec(x.min(y)),
                    "round" => Value::Int(x.round() as i64),
                    "floor" => Value::Dec(x.floor()),
                    "ceil" => Value::Dec(x.ceil()),
                    _ => self.unknown_method(o, name),
                });
            }
            Value::Closure(c) if name == "call" => return self.call_closure(c, a),
            Value::Str(n) if name == "call" => {
                let n = n.clone();
                return self.call_method(app, &n, a);
            }
            Value::Dev(d) => {
                if let Some(v) = self.device_method(*d, name, &a)? {
                    return Ok(v);
                }
            }
            // A command or query on a list of devices (a home binds several to a `multiple`
            // input): on each, as a hub does.
            Value::List(l)
                if !l.is_empty()
                    && l.iter().all(|x| matches!(x, Value::Dev(_)))
                    && (!footprint::command_attrs(name).is_empty()
                        || matches!(name, "currentValue" | "latestValue" | "currentState" | "latestState")) =>
            {
                let mut out = Vec::new();
                for x in l.clone().iter() {
                    if let Value::Dev(d) = x {
                        out.push(self.device_method(*d, name, &a)?.unwrap_or(Value::Null));
                    }
                }
                return Ok(if footprint::command_attrs(name).is_empty() { list(out) } else { Value::Null });
            }
            _ => {}
        }
        // Mutating collection methods write the result back to where the collection came from.
        if let (Value::List(_) | Value::Map(_) | Value::Null, Some(p)) = (o, path) {
            if matches!(name, "add" | "push" | "put" | "remove" | "clear" | "addAll" | "putAll" | "leftShift") {
                let mut c = if *o == Value::Null && name == "put" { map(Vec::new()) } else { o.clone() };
                if *o == Value::Null && name != "put" {
                    c = list(Vec::new());
                }
                let r = mutate(&mut c, name, &a);
                self.assign(p, c)?;
                return Ok(r);
            }
        }
        self.collection(o, name, a)
    }
}

pub(super) fn index(o: &Value, i: &Value, cx: &mut Ctx<'_>) -> Value {
    match o {
        Value::Obj("state") => cx.state_get(&i.text()),
        Value::Obj("settings") => cx.setting(&i.text()).unwrap_or(Value::Null),
        Value::Map(m) => map_get(m, i).cloned().unwrap_or(Value::Null),
        Value::List(l) => {
            let k = i.num().unwrap_or(0.0) as i64;
            let k = if k < 0 { l.len() as i64 + k } else { k };
            l.get(k as usize).cloned().unwrap_or(Value::Null)
        }
        Value::Dev(_) if i.num() == Some(0.0) => o.clone(),
        Value::Str(x) => x.chars().nth(i.num().unwrap_or(0.0) as usize).map_or(Value::Null, |c| s(&c.to_string())),
        _ => Value::Null,
    }
}

/// The English name of the day of the week of `ms` milliseconds after the epoch, in UTC (the
/// epoch was a Thursday).
fn weekday(ms: i64) -> &'static str {
    const DAYS: [&str; 7] = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];
    DAYS[ms.div_euclid(86_400_000).rem_euclid(7) as usize]
}
