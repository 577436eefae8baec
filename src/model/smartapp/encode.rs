//! A configuration's canonical encoding, its hash without encoding, and equality part by part
//! (what state matching in the stateful strategies reads).

use super::*;

pub(super) fn encode_value(v: &Value, out: &mut Vec<u32>) {
    match v {
        Value::Null => out.push(0),
        Value::Bool(b) => out.extend([1, *b as u32]),
        Value::Int(i) => out.extend([2, *i as u32, (*i >> 32) as u32]),
        Value::Dec(d) => {
            let b = d.to_bits();
            out.extend([3, b as u32, (b >> 32) as u32]);
        }
        Value::Str(x) => encode_str(x, 4, out),
        Value::List(l) => {
            out.extend([5, l.len() as u32]);
            l.iter().for_each(|x| encode_value(x, out));
        }
        Value::Map(m) => {
            out.extend([6, m.len() as u32]);
            for (k, v) in m.iter() {
                encode_value(k, out);
                encode_value(v, out);
            }
        }
        Value::Dev(d) => out.extend([7, *d as u32]),
        Value::Closure(c) => {
            // The closure's AST node: shared by every evaluation of the same expression.
            let p = Arc::as_ptr(c) as usize as u64;
            out.extend([8, p as u32, (p >> 32) as u32]);
        }
        Value::Obj(o) => encode_str(o, 9, out),
    }
}

pub(super) fn encode_str(x: &str, tag: u32, out: &mut Vec<u32>) {
    let b = x.as_bytes();
    out.reserve(2 + b.len().div_ceil(4));
    out.extend([tag, b.len() as u32]);
    let words = b.chunks_exact(4);
    let rest = words.remainder();
    out.extend(words.map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    if !rest.is_empty() {
        // Little-endian, zero-padded (as u32::from_le_bytes of the last bytes and zeros).
        out.push(rest.iter().rev().fold(0u32, |w, &c| (w << 8) | c as u32));
    }
}
