//! A configured home (docs/home-file.md, parsed by src/trace/home.rs) bound into the SmartApp
//! model: the home's devices come first, each with its name and every attribute of its
//! capabilities; an app's input bound by the home takes the device(s) or the value given; an
//! input the home leaves unbound keeps what the model does without a home (a device input gets
//! the one shared device of its capability, named after it; a value input the default IoTCheck's
//! Extractor gives) and is reported (`unsupported`, text and JSON), so that nothing is assumed
//! silently.
//!
//! Several apps bound to one device share it: their commands and subscriptions meet there, as on
//! a hub. A bound value is fixed: [`App::bound`] names the inputs the home binds, which the
//! model never varies (only unbound inputs may take other values across configurations).
//!
//! Every binding is checked against the app's own `input`s when the model is built: an input
//! the app does not declare, a device without the capability the input asks for, several
//! devices for an input that takes one, a value of the wrong type, an enum value outside its
//! literal options: an input error at the binding's file:line:col (exit 2).

use std::path::Path;

use super::load::Input;
use super::*;
use crate::trace::home::{BindValue, HomeFile, Pos};
use crate::trace::InputError;

/// A parsed home, ready to configure the apps as the model is built.
pub(super) struct Setup {
    pub(super) home: HomeFile,
}

/// Builds the system a home file describes.
pub fn load_home(path: &Path, opts: SmartAppOptions) -> Result<SmartAppModel, InputError> {
    let home = crate::trace::home::read_home(path)?;
    for d in &home.devices {
        if CAPABILITIES.contains(&d.name.as_str()) {
            return Err(d.pos.error(
                path,
                format!(
                    "`{}` names a capability: the shared device unbound inputs get; give the device another name",
                    d.name
                ),
            ));
        }
        for (cap, i) in d.caps.iter().zip(0..) {
            if capability_attrs(cap).is_empty() && !capability_known_empty(cap) {
                let at = Pos { text: cap.clone(), ..d.pos.clone() };
                return Err(at.error(path, format!("device `{}`: no capability `{cap}` in the device model", d.name)));
            }
            if d.caps[..i].contains(cap) {
                return Err(d.pos.error(path, format!("device `{}` lists capability `{cap}` twice", d.name)));
            }
        }
    }
    let mut parsed = Vec::new();
    for a in &home.apps {
        let bytes = crate::trace::input::read(&a.path)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| InputError::file(&a.path, "not UTF-8 text"))?;
        parsed.push((a.path.clone(), groovy::parse(&a.path, text)?));
    }
    if parsed.is_empty() {
        return Err(InputError::file(path, "the home installs no app (`app FILE.groovy`)"));
    }
    let setup = Setup { home };
    load::build_home(parsed, opts, Some(&setup))
}

impl Setup {
    /// The home's devices, first in the model's list: their names and capabilities.
    pub(super) fn declare_devices(&self, devices: &mut Vec<String>, caps: &mut Vec<Vec<String>>) {
        for d in &self.home.devices {
            devices.push(d.name.clone());
            caps.push(d.caps.clone());
        }
    }

    /// The device index of a home device (they come first, in order).
    fn device(&self, name: &str) -> Option<u16> {
        self.home.devices.iter().position(|d| d.name == name).map(|d| d as u16)
    }

    fn file(&self) -> &Path {
        &self.home.file
    }

    /// Binds app `ai`'s inputs the home gives into `settings`; returns their names. Each
    /// unbound input is reported in `unsupported`.
    pub(super) fn bind_app(
        &self,
        ai: usize,
        app: &str,
        inputs: &[Input],
        settings: &mut FxHashMap<String, Value>,
        unsupported: &mut Vec<String>,
    ) -> Result<Vec<String>, InputError> {
        let decl = &self.home.apps[ai];
        let file = self.file();
        let mut bound = Vec::new();
        for b in &decl.bindings {
            let Some(input) = inputs.iter().find(|i| i.name == b.input) else {
                let mut names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
                names.dedup();
                return Err(b
                    .pos
                    .error(file, format!("app {app} has no input `{}` (its inputs: {})", b.input, names.join(", "))));
            };
            let v = self.value(app, input, &b.values)?;
            settings.insert(b.input.clone(), v);
            bound.push(b.input.clone());
        }
        let home = file.display();
        let mut said: Vec<&str> = Vec::new();
        for i in inputs.iter().filter(|i| !bound.contains(&i.name)) {
            if said.contains(&i.name.as_str()) {
                continue;
            }
            said.push(&i.name);
            let what = match i.ty.strip_prefix("capability.").or_else(|| i.ty.strip_prefix("device.")) {
                Some(cap) => format!("the shared `{cap}` device"),
                None => "its default value".to_string(),
            };
            unsupported.push(format!(
                "{home}:{}: app {app}: input `{}` ({}) not bound by the home: it gets {what}",
                decl.pos.line, i.name, i.ty
            ));
        }
        Ok(bound)
    }

    /// The value `values` give `input`, checked against its type.
    fn value(&self, app: &str, input: &Input, values: &[(BindValue, Pos)]) -> Result<Value, InputError> {
        let file = self.file();
        let many = |v: Vec<Value>| if input.multiple { list(v) } else { v.into_iter().next().unwrap_or(Value::Null) };
        if values.len() > 1 && !input.multiple {
            return Err(values[1]
                .1
                .error(file, format!("input `{}` of {app} takes one value (it is not `multiple: true`)", input.name)));
        }
        if let Some(cap) = input.ty.strip_prefix("capability.").or_else(|| input.ty.strip_prefix("device.")) {
            let mut out = Vec::new();
            for (v, pos) in values {
                let BindValue::Device(name) = v else {
                    return Err(
                        pos.error(file, format!("input `{}` of {app} takes a device ({})", input.name, input.ty))
                    );
                };
                let Some(d) = self.device(name) else {
                    return Err(pos.error(file, format!("no device `{name}` in the home")));
                };
                let caps = &self.home.devices[d as usize].caps;
                // A device type (`device.myEcobeeDevice`) is taken by a device with the same
                // attributes.
                let fits = caps.iter().any(|c| c == cap)
                    || (input.ty.starts_with("device.")
                        && !capability_attrs(cap).is_empty()
                        && capability_attrs(cap)
                            .iter()
                            .all(|(a, _)| caps.iter().any(|c| capability_attrs(c).iter().any(|(b, _)| a == b))));
                if !fits {
                    return Err(pos.error(
                        file,
                        format!(
                            "input `{}` of {app} asks for {}; device `{name}` has {}",
                            input.name,
                            input.ty,
                            caps.join(", ")
                        ),
                    ));
                }
                out.push(Value::Dev(d));
            }
            return Ok(many(out));
        }
        let mut out = Vec::new();
        for (v, pos) in values {
            let wrong = |what: &str| {
                pos.error(file, format!("input `{}` of {app} is of type {}: {what}", input.name, input.ty))
            };
            let value = match (input.ty.as_str(), v) {
                ("number" | "decimal", BindValue::Number(n)) => {
                    if n.fract() == 0.0 && input.ty == "number" {
                        Value::Int(*n as i64)
                    } else {
                        Value::Dec(*n)
                    }
                }
                ("number" | "decimal", _) => return Err(wrong("expected a number")),
                ("bool" | "boolean", BindValue::Bool(b)) => Value::Bool(*b),
                ("bool" | "boolean", _) => return Err(wrong("expected true or false")),
                ("time", BindValue::Time(t) | BindValue::Text(t)) => s(t),
                ("time", _) => return Err(wrong("expected a time of day (07:30)")),
                ("mode", BindValue::Text(m)) => {
                    // The model's location modes (`event_values("mode")`), matched without case.
                    match event_values("mode").iter().find(|x| x.eq_ignore_ascii_case(m)) {
                        Some(x) => s(x),
                        None => s(m),
                    }
                }
                (_, BindValue::Device(d)) => {
                    return Err(wrong(&format!("`{d}` is no value (quote a text: \"{d}\")")));
                }
                (_, BindValue::Text(t) | BindValue::Time(t)) => {
                    if !input.options.is_empty() && !input.options.iter().any(|o| o == t) {
                        return Err(pos.error(
                            file,
                            format!("input `{}` of {app} takes one of: {}", input.name, input.options.join(", ")),
                        ));
                    }
                    s(t)
                }
                (_, BindValue::Number(n)) => {
                    if n.fract() == 0.0 {
                        Value::Int(*n as i64)
                    } else {
                        Value::Dec(*n)
                    }
                }
                (_, BindValue::Bool(b)) => Value::Bool(*b),
            };
            out.push(value);
        }
        Ok(many(out))
    }
}

impl SmartAppModel {
    /// The roles of each device: those the home gives, and its capabilities (every device is of
    /// the role of each of its capabilities, `lock`, `switch`, ...).
    pub(super) fn device_roles(&self, home: Option<&HomeFile>) -> Vec<Vec<String>> {
        (0..self.devices.len())
            .map(|d| {
                let mut r = self.device_caps[d].clone();
                if let Some(decl) = home.and_then(|h| h.devices.get(d)) {
                    r.extend(decl.roles.iter().cloned());
                }
                r
            })
            .collect()
    }
}

impl SmartAppModel {
    /// Whether a configured home binds input `input` of app `app`: such a value is fixed (the
    /// model varies unbound inputs only).
    pub fn is_bound(&self, app: usize, input: &str) -> bool {
        self.apps[app].bound.iter().any(|b| b == input)
    }
}
