//! The frame every page shares: one self-contained HTML document (inline CSS, inline SVG, no
//! script, nothing fetched from anywhere), and the pieces pages are made of (headings, tables,
//! badges, a collapsed block of text).

use std::fmt::Write;

use super::esc;

const STYLE: &str = "
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1d2330;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; }
header.top { background: #1d2330; color: #fff; padding: 18px 28px 14px; }
header.top h1 { margin: 0 0 4px; font-size: 20px; font-weight: 600; }
header.top .sub { color: #c8cdd8; font-size: 13px; word-break: break-all; }
main { max-width: 1240px; margin: 0 auto; padding: 14px 20px 40px; }
section { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; margin: 16px 0;
  padding: 14px 18px; }
h2 { font-size: 17px; margin: 0 0 10px; font-weight: 600; }
h3 { font-size: 15px; margin: 18px 0 6px; font-weight: 600; }
p { margin: 6px 0; }
code, pre { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }
code { background: #f0f2f5; padding: 1px 4px; border-radius: 3px; word-break: break-all; }
pre { background: #f7f8fa; border: 1px solid #e3e6eb; border-radius: 6px; padding: 10px;
  overflow-x: auto; white-space: pre; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; font-size: 12px;
  font-weight: 600; margin-right: 6px; }
.bad { background: #fde0e0; color: #a31515; }
.good { background: #dcf3e0; color: #1c6b2a; }
.warn { background: #fff1cc; color: #7a5300; }
.info { background: #e3ecfa; color: #1f4e99; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { padding: 4px 9px; border-bottom: 1px solid #e6e9ee; text-align: right; white-space: nowrap; }
th { background: #f0f2f5; font-weight: 600; position: sticky; top: 0; }
td.l, th.l { text-align: left; }
td.wrap, th.wrap { white-space: normal; text-align: left; min-width: 200px; word-break: break-all; }
tr.bad td { background: #fff3f3; }
table.kv td { text-align: left; border: none; padding: 2px 12px 2px 0; white-space: normal;
  word-break: break-word; vertical-align: top; }
table.kv td:last-child { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }
table.kv td:first-child { color: #5a6272; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.figure { margin: 10px 0 22px; }
.figure .cap { color: #3a4150; margin: 4px 0 8px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
details summary { cursor: pointer; color: #1f4e99; margin: 6px 0; }
details.figure > summary { font-weight: 600; font-size: 15px; }
ul { margin: 6px 0; padding-left: 22px; }
footer { color: #8a91a0; font-size: 12px; text-align: center; margin-top: 20px; }
";

/// A page being written: sections of HTML under a dark header.
pub struct Page {
    body: String,
}

impl Page {
    /// A page titled `title`, with `sub` (already HTML) under the title.
    pub fn new(title: &str, sub: &str) -> Page {
        let mut body = String::new();
        let _ = write!(
            body,
            "<header class=\"top\"><h1>{}</h1><div class=\"sub\">{sub}</div></header>\n<main>\n",
            esc(title)
        );
        Page { body }
    }

    /// Opens a section headed `title`; [`Page::end`] closes it.
    pub fn section(&mut self, title: &str, id: &str) {
        let _ = writeln!(self.body, "<section id=\"{}\"><h2>{}</h2>", esc(id), esc(title));
    }

    pub fn end(&mut self) {
        self.body.push_str("</section>\n");
    }

    /// Appends HTML as it is.
    pub fn html(&mut self, html: &str) {
        self.body.push_str(html);
    }

    /// A paragraph of text, escaped.
    pub fn para(&mut self, text: &str) {
        let _ = writeln!(self.body, "<p>{}</p>", esc(text));
    }

    /// The whole document.
    pub fn finish(self, title: &str) -> String {
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{}</main>\n\
<footer>tracepor {} &middot; one self-contained page: no scripts, nothing loaded from elsewhere</footer>\n</body>\n</html>\n",
            esc(title),
            self.body,
            env!("CARGO_PKG_VERSION")
        )
    }
}

/// A badge: `class` is `bad`, `good`, `warn` or `info`.
pub fn badge(class: &str, text: &str) -> String {
    format!("<span class=\"badge {class}\">{}</span>", esc(text))
}

/// Two columns of names and values (values escaped).
pub fn kv(rows: &[(&str, String)]) -> String {
    let mut out = String::from("<table class=\"kv\">");
    for (k, v) in rows {
        let _ = write!(out, "<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(v));
    }
    out.push_str("</table>\n");
    out
}

/// A table: `header`, then rows of cells (escaped); `left(i)` says which columns align left,
/// `wrap(i)` which may wrap; `bad(row)` marks a row.
pub fn table(
    header: &[&str],
    rows: &[Vec<String>],
    left: impl Fn(usize) -> bool,
    wrap: impl Fn(usize) -> bool,
    bad: impl Fn(usize) -> bool,
) -> String {
    let class = |i: usize| {
        if wrap(i) {
            " class=\"wrap\""
        } else if left(i) {
            " class=\"l\""
        } else {
            ""
        }
    };
    let mut out = String::from("<div class=\"scroll\"><table>\n<tr>");
    for (i, h) in header.iter().enumerate() {
        let _ = write!(out, "<th{}>{}</th>", class(i), esc(h));
    }
    out.push_str("</tr>\n");
    for (r, row) in rows.iter().enumerate() {
        let _ = write!(out, "<tr{}>", if bad(r) { " class=\"bad\"" } else { "" });
        for (i, c) in row.iter().enumerate() {
            let _ = write!(out, "<td{}>{}</td>", class(i), esc(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
    out
}

/// Text shown collapsed, as it is (escaped), under `summary`.
pub fn collapsed(summary: &str, text: &str) -> String {
    format!("<details><summary>{}</summary><pre>{}</pre></details>\n", esc(summary), esc(text))
}
