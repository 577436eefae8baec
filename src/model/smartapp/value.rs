//! Groovy values as the apps see them: texts shared instead of copied, lists and maps shared
//! and copied on write, and Groovy's loose equality, comparison and arithmetic on them.

use std::sync::Arc;

use crate::trace::groovy::{Name, Stmt};

/// A string value. Handlers copy strings (attribute values, state keys, event fields) far more
/// often than they build them, so a copy shares the text instead of allocating: literals of the
/// interpreter itself are static, the rest shared.
#[derive(Clone)]
pub enum Text {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Static(x) => x,
            Text::Shared(x) => x,
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, o: &Text) -> bool {
        **self == **o
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, o: &str) -> bool {
        **self == *o
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, o: &&str) -> bool {
        **self == **o
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl From<String> for Text {
    fn from(x: String) -> Text {
        Text::Shared(x.into())
    }
}

/// A Groovy value as the apps see it. Lists and maps are shared too and copied on write
/// (`Arc::make_mut`): a state's clone per step and every read of a list only count references.
#[derive(Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Dec(f64),
    Str(Text),
    List(Arc<Vec<Value>>),
    Map(Arc<Vec<(Value, Value)>>),
    /// A device (index into the model's devices).
    Dev(u16),
    Closure(Arc<(Vec<Name>, Vec<Stmt>)>),
    /// `state` / `atomicState` of the running app; `location`; `log`; `app`; `settings`.
    Obj(&'static str),
}

impl Clone for Value {
    fn clone(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Dec(d) => Value::Dec(*d),
            Value::Str(x) => Value::Str(x.clone()),
            Value::List(l) => Value::List(l.clone()),
            Value::Map(m) => Value::Map(m.clone()),
            Value::Dev(d) => Value::Dev(*d),
            Value::Closure(c) => Value::Closure(c.clone()),
            Value::Obj(o) => Value::Obj(o),
        }
    }
    /// Leaves a value that already shares `src`'s text, list or map as it is: a state copied
    /// over the previous step's successor (mostly the same values) counts no references.
    fn clone_from(&mut self, src: &Value) {
        match (&mut *self, src) {
            (Value::Str(Text::Shared(a)), Value::Str(Text::Shared(b))) if Arc::ptr_eq(a, b) => {}
            (Value::List(a), Value::List(b)) if Arc::ptr_eq(a, b) => {}
            (Value::Map(a), Value::Map(b)) if Arc::ptr_eq(a, b) => {}
            (Value::Null, Value::Null) => {}
            // Nothing to drop in these.
            (Value::Str(Text::Static(a)), Value::Str(Text::Static(b))) => *a = *b,
            (Value::Int(a), Value::Int(b)) => *a = *b,
            (Value::Bool(a), Value::Bool(b)) => *a = *b,
            (Value::Dec(a), Value::Dec(b)) => *a = *b,
            _ => *self = src.clone(),
        }
    }
}

pub fn list(l: Vec<Value>) -> Value {
    Value::List(Arc::new(l))
}

pub fn map(m: Vec<(Value, Value)>) -> Value {
    Value::Map(Arc::new(m))
}

impl Value {
    pub(super) fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Dec(d) => *d != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            _ => true,
        }
    }
    pub(super) fn num(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Dec(d) => Some(*d),
            Value::Str(s) => s.trim().parse().ok(),
            Value::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        }
    }
    pub fn text(&self) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            v => {
                let mut out = String::new();
                v.text_into(&mut out);
                out
            }
        }
    }
    /// [`Value::text`], borrowed from a string value.
    pub fn text_ref(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Value::Str(s) => std::borrow::Cow::Borrowed(s),
            v => std::borrow::Cow::Owned(v.text()),
        }
    }
    /// Appends the text of the value to `out` (interpolation builds no string per part).
    pub(super) fn text_into(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Dec(d) => {
                let _ = write!(out, "{d}");
            }
            Value::Str(s) => out.push_str(s),
            Value::List(l) => {
                out.push('[');
                for (i, x) in l.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    x.text_into(out);
                }
                out.push(']');
            }
            Value::Map(m) => {
                out.push('[');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.text_into(out);
                    out.push(':');
                    v.text_into(out);
                }
                out.push(']');
            }
            Value::Dev(d) => {
                let _ = write!(out, "device{d}");
            }
            Value::Closure(_) => out.push_str("closure"),
            Value::Obj(o) => out.push_str(o),
        }
    }
    pub(super) fn items(&self) -> Vec<Value> {
        self.items_ref().into_owned()
    }
    /// [`Value::items`] borrowed where the value holds them (a list; a single value is a list
    /// of itself): iterating a list copies no list.
    pub fn items_ref(&self) -> std::borrow::Cow<'_, [Value]> {
        use std::borrow::Cow;
        match self {
            Value::List(l) => Cow::Borrowed(&l[..]),
            Value::Null => Cow::Borrowed(&[]),
            Value::Map(m) => Cow::Owned(
                m.iter().map(|(k, v)| map(vec![(lit("key"), k.clone()), (lit("value"), v.clone())])).collect(),
            ),
            Value::Str(x) => Cow::Owned(x.chars().map(|c| Value::Str(c.to_string().into())).collect()),
            other => Cow::Borrowed(std::slice::from_ref(other)),
        }
    }
}

pub fn s(x: &str) -> Value {
    Value::Str(Text::Shared(x.into()))
}

/// A string value of the interpreter's own text, without allocating.
pub fn lit(x: &'static str) -> Value {
    Value::Str(Text::Static(x))
}

pub(super) fn loose_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(_) | Value::Dec(_), Value::Int(_) | Value::Dec(_)) => a.num() == b.num(),
        (Value::Str(x), Value::Bool(_) | Value::Null) | (Value::Bool(_) | Value::Null, Value::Str(x)) => {
            let _ = x;
            false
        }
        _ => a == b,
    }
}

/// `==` of Groovy as the apps of the corpus use it: [`loose_eq`], except that a device's State
/// (`currentState("contact")`, a map with its `value` and `date`) compared with a text compares
/// its value. A hub's State never equals a text; the corpus's copies of some apps were edited
/// for IoTCheck, whose `currentState` returns the value itself (WindowOrDoorOpen keeps its
/// original `contactState.value == "open"` as a comment beside `contactState == open`), and
/// the manual study judged what the author meant.
fn state_eq(a: &Value, b: &Value) -> bool {
    let state_value = |m: &Value| match m {
        Value::Map(m) if map_get_str(m, "date").is_some() => map_get_str(m, "value").cloned(),
        _ => None,
    };
    match (a, b) {
        (Value::Map(_), Value::Str(_)) => state_value(a).is_some_and(|v| loose_eq(&v, b)),
        (Value::Str(_), Value::Map(_)) => state_value(b).is_some_and(|v| loose_eq(a, &v)),
        _ => loose_eq(a, b),
    }
}

pub(super) fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        _ => a.num()?.partial_cmp(&b.num()?),
    }
}

pub fn lower_first(x: &str) -> String {
    let mut c = x.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Whether `x` is [`lower_first`] of `a`, without building it.
pub fn is_lower_first(x: &str, a: &str) -> bool {
    let mut c = a.chars();
    match c.next() {
        None => x.is_empty(),
        Some(f) if f.is_ascii() => {
            x.as_bytes().first() == Some(&(f as u8).to_ascii_lowercase()) && x[1..] == *c.as_str()
        }
        Some(_) => *x == *lower_first(a),
    }
}

pub(super) fn num_text(v: &Value) -> String {
    match v.num() {
        Some(f) if f.fract() == 0.0 => (f as i64).to_string(),
        Some(f) => f.to_string(),
        None => v.text(),
    }
}

pub(super) fn map_get<'a>(m: &'a [(Value, Value)], k: &Value) -> Option<&'a Value> {
    if let Value::Str(k) = k {
        return map_get_str(m, k);
    }
    m.iter().find(|(x, _)| loose_eq(x, k) || x.text() == k.text()).map(|p| &p.1)
}

/// Lookup by a string key without building one (maps are read on every `evt.value`).
pub(super) fn map_get_str<'a>(m: &'a [(Value, Value)], k: &str) -> Option<&'a Value> {
    m.iter()
        .find(|(x, _)| match x {
            Value::Str(x) => x == k,
            other => other.text() == k,
        })
        .map(|p| &p.1)
}

pub(super) fn map_put(m: &mut Vec<(Value, Value)>, k: Value, v: Value) {
    let slot = match &k {
        Value::Str(ks) => m.iter_mut().find(|(x, _)| {
            matches!(x, Value::Str(xs) if xs == ks) || (!matches!(x, Value::Str(_)) && x.text() == **ks)
        }),
        _ => m.iter_mut().find(|(x, _)| x.text() == k.text()),
    };
    match slot {
        Some(slot) => slot.1 = v,
        None => m.push((k, v)),
    }
}

pub(super) fn arith(op: &str, x: &Value, y: &Value) -> Value {
    match (x, y, op) {
        (Value::Str(a), _, "+") => s(&format!("{a}{}", y.text())),
        (Value::List(a), _, "+") => list(a.iter().cloned().chain(y.items()).collect()),
        (Value::List(a), _, "-") => {
            let r = y.items_ref();
            list(a.iter().filter(|v| !r.iter().any(|w| loose_eq(v, w))).cloned().collect())
        }
        (Value::Int(a), Value::Int(b), _) => match op {
            "+" => Value::Int(a.wrapping_add(*b)),
            "-" => Value::Int(a.wrapping_sub(*b)),
            "*" => Value::Int(a.wrapping_mul(*b)),
            "/" if *b != 0 => {
                if a % b == 0 {
                    Value::Int(a / b)
                } else {
                    Value::Dec(*a as f64 / *b as f64)
                }
            }
            "%" if *b != 0 => Value::Int(a.wrapping_rem(*b)),
            "**" => Value::Int(a.wrapping_pow((*b).clamp(0, 62) as u32)),
            _ => Value::Null,
        },
        _ => match (x.num(), y.num()) {
            (Some(a), Some(b)) => match op {
                "+" => Value::Dec(a + b),
                "-" => Value::Dec(a - b),
                "*" => Value::Dec(a * b),
                "/" if b != 0.0 => Value::Dec(a / b),
                "%" if b != 0.0 => Value::Dec(a % b),
                "**" => Value::Dec(a.powf(b)),
                _ => Value::Null,
            },
            _ => Value::Null,
        },
    }
}

pub(super) fn binary(op: &str, x: &Value, y: &Value) -> Value {
    use std::cmp::Ordering::*;
    match op {
        "==" => Value::Bool(state_eq(x, y)),
        "!=" => Value::Bool(!state_eq(x, y)),
        "<" => Value::Bool(compare(x, y) == Some(Less)),
        "<=" => Value::Bool(matches!(compare(x, y), Some(Less | Equal))),
        ">" => Value::Bool(compare(x, y) == Some(Greater)),
        ">=" => Value::Bool(matches!(compare(x, y), Some(Greater | Equal))),
        "<=>" => Value::Int(match compare(x, y) {
            Some(Less) => -1,
            Some(Greater) => 1,
            _ => 0,
        }),
        "in" => Value::Bool(match y {
            Value::Map(m) => map_get(m, x).is_some(),
            _ => y.items_ref().iter().any(|v| loose_eq(v, x)),
        }),
        "instanceof" => Value::Bool(true),
        "=~" | "==~" => Value::Bool(x.text().contains(&y.text())),
        "<<" => match x {
            Value::List(l) => list(l.iter().cloned().chain([y.clone()]).collect()),
            _ => Value::Null,
        },
        "&" | "|" | "^" => match (x, y) {
            (Value::Bool(a), Value::Bool(b)) => Value::Bool(match op {
                "&" => a & b,
                "|" => a | b,
                _ => a ^ b,
            }),
            _ => Value::Null,
        },
        _ => arith(op, x, y),
    }
}

/// A JSON text as Groovy's `JsonSlurper` (and the platform's `parseJson`) gives it: objects as
/// maps, arrays as lists, numbers as integers or decimals; text that is not JSON gives null.
pub(super) fn parse_json(text: &str) -> Value {
    fn conv(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => {
                n.as_i64().map_or_else(|| Value::Dec(n.as_f64().unwrap_or(0.0)), Value::Int)
            }
            serde_json::Value::String(x) => Value::Str(x.into()),
            serde_json::Value::Array(a) => list(a.into_iter().map(conv).collect()),
            serde_json::Value::Object(o) => map(o.into_iter().map(|(k, v)| (Value::Str(k.into()), conv(v))).collect()),
        }
    }
    serde_json::from_str(text).map_or(Value::Null, conv)
}
