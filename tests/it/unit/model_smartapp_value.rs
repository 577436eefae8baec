//! Unit tests of src/model/smartapp/value.rs: the borrowing forms of a value's text and items
//! agree with the owned ones.

use tracepor::model::smartapp::value::{is_lower_first, list, lit, lower_first, map, s, Value};

#[test]
fn is_lower_first_agrees_with_lower_first() {
    let attrs = ["switch", "thermostatMode", "level", "s", "", "Éclair", "éclair", "x1"];
    let reads = ["Switch", "ThermostatMode", "Level", "S", "", "Éclair", "switch", "Swit", "X1", "ÉClair"];
    for x in attrs {
        for a in reads {
            assert_eq!(is_lower_first(x, a), x == lower_first(a), "{x} against {a}");
        }
    }
}

#[test]
fn items_ref_is_items() {
    let values = [
        Value::Null,
        Value::Int(3),
        Value::Dev(1),
        s("ab"),
        list(vec![Value::Int(1), s("x")]),
        map(vec![(lit("k"), Value::Bool(true))]),
    ];
    for v in values {
        let owned: Vec<Value> = match &v {
            Value::List(l) => l.to_vec(),
            Value::Null => Vec::new(),
            Value::Map(m) => {
                m.iter().map(|(k, x)| map(vec![(lit("key"), k.clone()), (lit("value"), x.clone())])).collect()
            }
            Value::Str(x) => x.chars().map(|c| s(&c.to_string())).collect(),
            other => vec![other.clone()],
        };
        assert_eq!(*v.items_ref(), owned[..], "{v:?}");
        assert_eq!(v.text_ref(), v.text());
    }
}
