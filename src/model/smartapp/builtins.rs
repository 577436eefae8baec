//! Groovy's library as the apps use it: collection methods with closures (each, find, collect,
//! inject, ...), list and map mutation written back to where the collection came from, string
//! and number methods.

use super::*;

/// Free functions the interpreter carries out as nothing on purpose, so that meeting one is not
/// reported as unmodelled (`Ctx::unmodelled`): the settings builders (a firing builds no page),
/// `unsubscribe` (subscriptions are made once, at installation), and the metadata calls.
const INERT_FREE: &[&str] = &[
    "definition",
    "preferences",
    "page",
    "dynamicPage",
    "section",
    "input",
    "href",
    "paragraph",
    "label",
    "mode",
    "icon",
    "unsubscribe",
    "mappings",
    "path",
];

/// The Java classes whose static methods the apps call (`Double.parseDouble(x)`), as the
/// interpreter names them.
pub(super) fn class_object(name: &str) -> Option<Value> {
    Some(Value::Obj(match name {
        "Double" => "Double",
        "Float" => "Float",
        "Integer" => "Integer",
        "Long" => "Long",
        "BigDecimal" => "BigDecimal",
        "String" => "String",
        "Boolean" => "Boolean",
        _ => return None,
    }))
}

impl SmartAppModel {
    /// Adds what a firing met that the model does not carry out to the list `unsupported` gives
    /// (each once).
    pub(super) fn note_unmodelled(&self, found: Vec<(usize, usize, String)>) {
        let Ok(mut met) = self.met.lock() else { return };
        for (app, line, what) in found {
            let t = format!("{}:{line}: {what}", self.apps[app].file);
            if !met.contains(&t) {
                met.push(t);
            }
        }
    }
}

impl Ctx<'_> {
    /// Notes a call the model does not carry out (it gives null): reported with the file and
    /// line (`Model::unsupported`), so nothing is dropped silently.
    pub(super) fn unmodelled(&mut self, what: String) {
        let (app, line) = (self.app, self.line);
        if !self.unknown.iter().any(|u| u.0 == app && u.1 == line && u.2 == what) {
            self.unknown.push((app, line, what));
        }
    }

    /// A free function the interpreter does not know: null, reported unless it is one of the
    /// calls that do nothing on purpose.
    pub(super) fn unknown_function(&mut self, name: &str) -> Value {
        if !INERT_FREE.contains(&name) {
            self.unmodelled(format!("`{name}(...)`: a function the model does not know (it gives null)"));
        }
        Value::Null
    }

    /// A method the interpreter does not know on a value of this kind: null, reported.
    pub(super) fn unknown_method(&mut self, o: &Value, name: &str) -> Value {
        let kind = match o {
            // A method of null (an unset optional input, `x?.m()`) is null in Groovy too.
            Value::Null => return Value::Null,
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Dec(_) => "a number",
            Value::Str(_) => "a string",
            Value::List(_) => "a list",
            Value::Map(_) => "a map",
            Value::Dev(_) => "a device",
            Value::Closure(_) => "a closure",
            Value::Obj(o) => o,
        };
        self.unmodelled(format!("`.{name}(...)` on {kind}: a method the model does not know (it gives null)"));
        Value::Null
    }

    /// A static method of a Java class (`class_object`): the conversions the apps use.
    pub(super) fn class_method(&mut self, class: &'static str, name: &str, a: &[Value]) -> Value {
        let x = a.first().cloned().unwrap_or(Value::Null);
        let num = || x.text().trim().trim_end_matches('%').parse::<f64>().ok();
        match (class, name) {
            ("Double" | "Float" | "BigDecimal", "parseDouble" | "parseFloat" | "valueOf" | "new") => {
                num().map_or(Value::Null, Value::Dec)
            }
            ("Integer" | "Long", "parseInt" | "parseLong" | "valueOf") => {
                num().map_or(Value::Null, |f| Value::Int(f as i64))
            }
            ("String", "valueOf") | (_, "toString") => s(&x.text()),
            ("Boolean", "parseBoolean" | "valueOf") => Value::Bool(x.text().eq_ignore_ascii_case("true")),
            _ => self.unknown_method(&Value::Obj(class), name),
        }
    }

    /// Groovy's collection, string and number methods.
    pub(super) fn collection(&mut self, o: &Value, name: &str, a: Args) -> R<Value> {
        let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
        let closure = a.iter().rev().find_map(|v| match v {
            Value::Closure(c) => Some(c.clone()),
            _ => None,
        });
        // Closure-taking iteration methods.
        if let Some(c) = &closure {
            let items = o.items_ref();
            let pair_args = |x: &Value| -> Args {
                match (o, x, c.0.len()) {
                    (Value::Map(_), Value::Map(kv), 2) => {
                        smallvec![
                            map_get(kv, &lit("key")).cloned().unwrap_or(Value::Null),
                            map_get(kv, &lit("value")).cloned().unwrap_or(Value::Null),
                        ]
                    }
                    _ => smallvec![x.clone()],
                }
            };
            match name {
                "each" | "eachWithIndex" => {
                    for (i, x) in items.iter().enumerate() {
                        let mut args = pair_args(x);
                        if name == "eachWithIndex" {
                            args.push(Value::Int(i as i64));
                        }
                        self.call_closure(c, args)?;
                    }
                    return Ok(o.clone());
                }
                "find" => {
                    for x in items.iter() {
                        if self.call_closure(c, pair_args(x))?.truthy() {
                            return Ok(x.clone());
                        }
                    }
                    return Ok(Value::Null);
                }
                "findAll" | "grep" => {
                    let mut out = Vec::new();
                    for x in items.iter() {
                        if self.call_closure(c, pair_args(x))?.truthy() {
                            out.push(x.clone());
                        }
                    }
                    return Ok(list(out));
                }
                "any" | "every" | "count" => {
                    let mut n = 0;
                    for x in items.iter() {
                        if self.call_closure(c, pair_args(x))?.truthy() {
                            n += 1;
                        }
                    }
                    return Ok(match name {
                        "any" => Value::Bool(n > 0),
                        "every" => Value::Bool(n == items.len()),
                        _ => Value::Int(n as i64),
                    });
                }
                "collect" | "collectMany" => {
                    let mut out = Vec::new();
                    for x in items.iter() {
                        let v = self.call_closure(c, pair_args(x))?;
                        if name == "collectMany" {
                            out.extend(v.items());
                        } else {
                            out.push(v);
                        }
                    }
                    return Ok(list(out));
                }
                "sum" => {
                    let mut acc = Value::Int(0);
                    for x in items.iter() {
                        let v = self.call_closure(c, pair_args(x))?;
                        acc = arith("+", &acc, &v);
                    }
                    return Ok(acc);
                }
                "inject" => {
                    let mut acc = arg(0);
                    for x in items.iter() {
                        acc = self.call_closure(c, smallvec![acc, x.clone()])?;
                    }
                    return Ok(acc);
                }
                "times" => {
                    let n = o.num().unwrap_or(0.0) as i64;
                    for i in 0..n.min(10_000) {
                        self.call_closure(c, smallvec![Value::Int(i)])?;
                    }
                    return Ok(Value::Null);
                }
                "sort" | "max" | "min" | "groupBy" | "unique" => {
                    let mut keyed = Vec::new();
                    for x in items.iter() {
                        keyed.push((self.call_closure(c, smallvec![x.clone()])?, x.clone()));
                    }
                    if c.0.len() < 2 {
                        keyed.sort_by(|p, q| compare(&p.0, &q.0).unwrap_or(std::cmp::Ordering::Equal));
                    }
                    return Ok(match name {
                        "max" => keyed.last().map_or(Value::Null, |p| p.1.clone()),
                        "min" => keyed.first().map_or(Value::Null, |p| p.1.clone()),
                        _ => list(keyed.into_iter().map(|p| p.1).collect()),
                    });
                }
                _ => {}
            }
        }
        Ok(match (o, name) {
            // A text is its own string (shared, not copied).
            (Value::Str(x), "toString") => Value::Str(x.clone()),
            (_, "toString") => s(&o.text()),
            (_, "is" | "equals") => Value::Bool(loose_eq(o, &arg(0))),
            (Value::Str(x), _) => match string_method(x, name, &a) {
                Some(v) => v,
                None => self.unknown_method(o, name),
            },
            (Value::Int(_) | Value::Dec(_), _) => match name {
                "toInteger" | "intValue" | "toLong" | "longValue" => Value::Int(o.num().unwrap_or(0.0) as i64),
                "toDouble" | "doubleValue" | "toFloat" | "floatValue" | "toBigDecimal" => {
                    Value::Dec(o.num().unwrap_or(0.0))
                }
                "round" => Value::Int(o.num().unwrap_or(0.0).round() as i64),
                "abs" => Value::Dec(o.num().unwrap_or(0.0).abs()),
                "plus" => arith("+", o, &arg(0)),
                "minus" => arith("-", o, &arg(0)),
                // A date is its milliseconds (`new Date()` is `now()`): formatted, a text that
                // names the instant in the pattern, equal exactly when both are (rise-and-shine's
                // once-a-day check compares two formatted dates).
                "format" => Value::Str(format!("{}@{}", arg(0).text(), o.text()).into()),
                _ => self.unknown_method(o, name),
            },
            (Value::Map(m), _) => match name {
                "get" | "getAt" => map_get(m, &arg(0)).cloned().unwrap_or_else(|| arg(1)),
                "containsKey" => Value::Bool(map_get(m, &arg(0)).is_some()),
                "containsValue" => Value::Bool(m.iter().any(|(_, v)| loose_eq(v, &arg(0)))),
                "keySet" | "keys" => list(m.iter().map(|p| p.0.clone()).collect()),
                "values" => list(m.iter().map(|p| p.1.clone()).collect()),
                "size" => Value::Int(m.len() as i64),
                "isEmpty" => Value::Bool(m.is_empty()),
                _ => self.unknown_method(o, name),
            },
            (Value::Dev(_) | Value::List(_) | Value::Null, _) => {
                let l = o.items_ref();
                match name {
                    "size" | "count" => Value::Int(if name == "count" {
                        l.iter().filter(|x| loose_eq(x, &arg(0))).count()
                    } else {
                        l.len()
                    } as i64),
                    "isEmpty" => Value::Bool(l.is_empty()),
                    "contains" => Value::Bool(l.iter().any(|x| loose_eq(x, &arg(0)))),
                    "first" | "head" => l.first().cloned().unwrap_or(Value::Null),
                    "last" => l.last().cloned().unwrap_or(Value::Null),
                    "get" | "getAt" => l.get(arg(0).num().unwrap_or(0.0) as usize).cloned().unwrap_or(Value::Null),
                    "indexOf" => Value::Int(l.iter().position(|x| loose_eq(x, &arg(0))).map_or(-1, |p| p as i64)),
                    "join" => s(&l.iter().map(Value::text).collect::<Vec<_>>().join(&match arg(0) {
                        Value::Null => String::new(),
                        v => v.text(),
                    })),
                    "sum" => l.iter().fold(Value::Int(0), |acc, x| arith("+", &acc, x)),
                    "max" => l
                        .iter()
                        .cloned()
                        .reduce(|p, q| if compare(&q, &p) == Some(std::cmp::Ordering::Greater) { q } else { p })
                        .unwrap_or(Value::Null),
                    "min" => l
                        .iter()
                        .cloned()
                        .reduce(|p, q| if compare(&q, &p) == Some(std::cmp::Ordering::Less) { q } else { p })
                        .unwrap_or(Value::Null),
                    "sort" => {
                        let mut l = l.into_owned();
                        l.sort_by(|p, q| compare(p, q).unwrap_or(std::cmp::Ordering::Equal));
                        list(l)
                    }
                    "unique" | "toSet" => {
                        let mut out: Vec<Value> = Vec::new();
                        for x in l.iter() {
                            if !out.iter().any(|y| loose_eq(y, x)) {
                                out.push(x.clone());
                            }
                        }
                        list(out)
                    }
                    "reverse" => list(l.iter().rev().cloned().collect()),
                    "flatten" => list(l.iter().flat_map(Value::items).collect()),
                    "toList" | "asList" | "collect" => list(l.into_owned()),
                    "plus" => list(l.iter().cloned().chain(arg(0).items()).collect()),
                    "minus" => {
                        let r = arg(0);
                        let r = r.items_ref();
                        list(l.iter().filter(|x| !r.iter().any(|y| loose_eq(x, y))).cloned().collect())
                    }
                    "intersect" => {
                        let r = arg(0);
                        let r = r.items_ref();
                        list(l.iter().filter(|x| r.iter().any(|y| loose_eq(x, y))).cloned().collect())
                    }
                    _ => self.unknown_method(o, name),
                }
            }
            _ => self.unknown_method(o, name),
        })
    }
}

pub(super) fn mutate(c: &mut Value, name: &str, a: &[Value]) -> Value {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    match c {
        Value::List(l) => match (name, Arc::make_mut(l)) {
            ("add" | "push" | "leftShift", l) => {
                if l.len() < 10_000 {
                    l.push(arg(0));
                }
                Value::Bool(true)
            }
            ("addAll", l) => {
                l.extend(arg(0).items());
                Value::Bool(true)
            }
            ("remove", l) => match arg(0) {
                Value::Int(i) if (i as usize) < l.len() => l.remove(i as usize),
                v => {
                    let p = l.iter().position(|x| loose_eq(x, &v));
                    Value::Bool(p.map(|p| l.remove(p)).is_some())
                }
            },
            ("clear", l) => {
                l.clear();
                Value::Null
            }
            _ => Value::Null,
        },
        Value::Map(m) => match (name, Arc::make_mut(m)) {
            ("put", m) => {
                map_put(m, arg(0), arg(1));
                Value::Null
            }
            ("putAll", m) => {
                if let Value::Map(o) = arg(0) {
                    for (k, v) in o.iter().cloned() {
                        map_put(m, k, v);
                    }
                }
                Value::Null
            }
            ("remove", m) => {
                let k = arg(0).text();
                let p = m.iter().position(|(x, _)| x.text() == k);
                p.map(|p| m.remove(p).1).unwrap_or(Value::Null)
            }
            ("clear", m) => {
                m.clear();
                Value::Null
            }
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

/// The text of argument `i` (a missing one is null), borrowed from a string.
pub(super) fn text_arg(a: &[Value], i: usize) -> std::borrow::Cow<'_, str> {
    a.get(i).map_or(std::borrow::Cow::Borrowed("null"), Value::text_ref)
}

/// A string method (None: one the interpreter does not know).
pub(super) fn string_method(x: &str, name: &str, a: &[Value]) -> Option<Value> {
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    Some(match name {
        "toInteger" | "toLong" | "intValue" => x.trim().parse::<f64>().map_or(Value::Null, |f| Value::Int(f as i64)),
        "toDouble" | "toFloat" | "toBigDecimal" => x.trim().parse::<f64>().map_or(Value::Null, Value::Dec),
        "isNumber" | "isInteger" | "isDouble" => Value::Bool(x.trim().parse::<f64>().is_ok()),
        "toLowerCase" => s(&x.to_lowercase()),
        "toUpperCase" => s(&x.to_uppercase()),
        "trim" => s(x.trim()),
        "size" | "length" => Value::Int(x.chars().count() as i64),
        "contains" => Value::Bool(x.contains(&*text_arg(a, 0))),
        "startsWith" => Value::Bool(x.starts_with(&*text_arg(a, 0))),
        "endsWith" => Value::Bool(x.ends_with(&*text_arg(a, 0))),
        "equalsIgnoreCase" => Value::Bool(x.eq_ignore_ascii_case(&text_arg(a, 0))),
        "indexOf" => Value::Int(x.find(&*text_arg(a, 0)).map_or(-1, |p| p as i64)),
        "replace" | "replaceAll" => s(&x.replace(&*text_arg(a, 0), &text_arg(a, 1))),
        "capitalize" => {
            let mut c = x.chars();
            s(&c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default())
        }
        "split" | "tokenize" => {
            let sep = match arg(0) {
                Value::Null => " ".to_string(),
                v => v.text(),
            };
            list(x.split(sep.as_str()).filter(|p| !p.is_empty() || name == "split").map(s).collect())
        }
        "substring" => {
            let chars: Vec<char> = x.chars().collect();
            let i = (arg(0).num().unwrap_or(0.0) as usize).min(chars.len());
            let j = arg(1).num().map_or(chars.len(), |f| f as usize).clamp(i, chars.len());
            s(&chars[i..j].iter().collect::<String>())
        }
        "plus" => s(&format!("{x}{}", arg(0).text())),
        "isEmpty" => Value::Bool(x.is_empty()),
        _ => return None,
    })
}
