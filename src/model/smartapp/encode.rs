//! A configuration's canonical encoding, its hash without encoding, and equality part by part
//! (what state matching in the stateful strategies reads).

use std::hash::Hasher;

use rustc_hash::FxHasher;

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

/// Feeds a value to a hasher as [`encode_value`] would write it (the same parts, so equal
/// encodings hash alike), without building the encoding; the words it would take.
pub(super) fn hash_value(v: &Value, h: &mut FxHasher) -> usize {
    match v {
        Value::Null => {
            h.write_u8(0);
            1
        }
        Value::Bool(b) => {
            h.write_u8(1);
            h.write_u8(*b as u8);
            2
        }
        Value::Int(i) => {
            h.write_u8(2);
            h.write_i64(*i);
            3
        }
        Value::Dec(d) => {
            h.write_u8(3);
            h.write_u64(d.to_bits());
            3
        }
        Value::Str(x) => hash_str(x, 4, h),
        Value::List(l) => {
            h.write_u8(5);
            h.write_usize(l.len());
            2 + l.iter().map(|x| hash_value(x, h)).sum::<usize>()
        }
        Value::Map(m) => {
            h.write_u8(6);
            h.write_usize(m.len());
            2 + m.iter().map(|(k, v)| hash_value(k, h) + hash_value(v, h)).sum::<usize>()
        }
        Value::Dev(d) => {
            h.write_u8(7);
            h.write_u16(*d);
            2
        }
        Value::Closure(c) => {
            h.write_u8(8);
            h.write_usize(Arc::as_ptr(c) as usize);
            3
        }
        Value::Obj(o) => hash_str(o, 9, h),
    }
}

pub(super) fn hash_str(x: &str, tag: u8, h: &mut FxHasher) -> usize {
    let b = x.as_bytes();
    h.write_u64(((tag as u64) << 32) | b.len() as u64);
    let n = b.len();
    if n <= 8 {
        // Most texts (attribute values, keys) are short: one word of their bytes (with the
        // length written above, the first and last four, or the first, middle and last).
        let w = if n >= 4 {
            let first = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
            let last = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]) as u64;
            (last << 32) | first
        } else if n > 0 {
            ((b[0] as u64) << 16) | ((b[n / 2] as u64) << 8) | b[n - 1] as u64
        } else {
            0
        };
        h.write_u64(w);
    } else {
        h.write(b);
    }
    2 + b.len().div_ceil(4)
}

/// Whether two values have the same encoding ([`encode_value`]), without encoding them: the
/// same variant and contents, decimals by their bits, closures by identity; shared lists and
/// maps are equal at once.
pub(super) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Dec(x), Value::Dec(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => text_shared(x, y) || **x == **y,
        (Value::List(x), Value::List(y)) => {
            Arc::ptr_eq(x, y) || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_value(p, q)))
        }
        (Value::Map(x), Value::Map(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter().zip(y.iter()).all(|(p, q)| same_value(&p.0, &q.0) && same_value(&p.1, &q.1)))
        }
        (Value::Dev(x), Value::Dev(y)) => x == y,
        (Value::Closure(x), Value::Closure(y)) => Arc::ptr_eq(x, y),
        (Value::Obj(x), Value::Obj(y)) => x == y,
        _ => false,
    }
}
