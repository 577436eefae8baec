//! Lane diagrams of schedules: a counterexample (a deadlock or error schedule of an
//! EM trace, a conflict of SmartApps, an event model's error) or a race witness, drawn as one
//! column per lane ([`Model::lanes`]: a thread or looper, an app, the environment), time going
//! down, one row per mark ([`Model::lane_marks`]): operations and accesses as marks, each run of
//! a handler as a box on its lane, the racing or conflicting pair (or a deadlock's stuck
//! operations) outlined in red and joined by a line.
//!
//! Built by replaying the schedule on the model ([`diagram`]), rendered as inline SVG ([`svg`]).
//! Each lane's header has its own solid colour from [`LANE_COLOURS`], used nowhere else on a
//! page, so that a screenshot shows which lanes were drawn (tests/html_page.rs).

use std::fmt::Write;

use super::esc;
use crate::model::lane::{Lane, LaneKind, LaneMark};
use crate::model::{Choice, Conflict, Model};

/// The solid colours of lane headers, one per lane in order (repeating past the twelfth). No
/// red: red marks the pair a diagram is about.
pub const LANE_COLOURS: [(u8, u8, u8); 12] = [
    (0x1f, 0x77, 0xb4),
    (0x2c, 0xa0, 0x2c),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
    (0x17, 0xbe, 0xcf),
    (0xbc, 0xbd, 0x22),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x7f, 0x0e),
    (0x39, 0x3b, 0x79),
    (0x63, 0x79, 0x39),
    (0x84, 0x3c, 0x39),
];

/// What marks the pair a diagram is about.
const MARKED: &str = "#d62728";

/// The most rows a diagram draws; a longer schedule is cut, and says so.
pub const MAX_ROWS: usize = 600;

/// What a diagram is drawn to show.
#[derive(Clone, Debug)]
pub enum Marked<'a> {
    /// Two operations of an EM trace, by their numbers: a racing pair.
    Ops(u32, u32),
    /// The two writes of a conflict: the last app's write before, the app's write that
    /// conflicts.
    Conflict(&'a Conflict),
    /// The operations left stuck at the end (a deadlock).
    Stuck,
    /// The last step (an error), on `app`'s lane when given.
    Last(Option<&'a str>),
    Nothing,
}

/// One row of a diagram: a mark of step `step` (from 1), or the start of a handler's box.
#[derive(Clone, Debug)]
enum Row {
    /// `times`: how many equal marks in a row it stands for (`R x` read four times is one row).
    Mark {
        step: usize,
        mark: LaneMark,
        pending: bool,
        times: usize,
    },
    BoxStart {
        lane: usize,
        name: String,
    },
    /// `marks` marks of steps `from` to `to` left out (a schedule longer than [`MAX_ROWS`]).
    Gap {
        marks: usize,
        from: usize,
        to: usize,
    },
}

/// A schedule laid out on lanes, ready to render.
#[derive(Clone, Debug)]
pub struct Diagram {
    pub lanes: Vec<Lane>,
    rows: Vec<Row>,
    /// The line each row is drawn on: its own, but a deadlock's stuck operations share one.
    line: Vec<usize>,
    /// Rows outlined in red.
    marked: Vec<usize>,
    /// Steps of the schedule; marks left out to keep to [`MAX_ROWS`] ([`kept_marks`]).
    pub steps: usize,
    pub cut: usize,
    /// How the schedule ended, in words (the error, or what is left stuck).
    pub end: String,
    /// Lanes of the model with nothing in this schedule, not drawn.
    pub left_out: usize,
    /// When the diagram is wider than [`FOLD_OVER`] lanes and is about a pair: the same
    /// schedule with only the pair's lanes drawn in full and the others folded into one lane
    /// ([`LaneKind::Folded`]), each of their marks named by its lane. The page shows it first
    /// and keeps this diagram, every lane, under it in a collapsed `<details>`.
    pub folded: Option<Box<Diagram>>,
}

/// Diagrams with more lanes than this fold the lanes that take no part in their pair.
pub const FOLD_OVER: usize = 8;

impl Diagram {
    /// The lanes that hold at least one mark.
    pub fn lanes_used(&self) -> usize {
        let mut used = vec![false; self.lanes.len()];
        for r in &self.rows {
            if let Row::Mark { mark, .. } = r {
                used[mark.lane] = true;
            }
        }
        used.into_iter().filter(|&u| u).count()
    }

    /// How many rows are outlined as the pair the diagram is about.
    pub fn marked(&self) -> usize {
        self.marked.len()
    }
}

/// Replays `path` on `model`, collecting each step's marks; after the last step of a schedule
/// that ends with nothing enabled, what each lane would run next (a deadlock's stuck
/// operations), drawn dashed.
pub fn diagram<M: Model>(model: &M, path: &[Choice], marked: Marked) -> Diagram {
    let all_lanes = model.lanes();
    let mut s = model.initial();
    let mut marks: Vec<(usize, LaneMark, bool)> = Vec::new();
    let mut end = String::new();
    let mut buf = Vec::new();
    let mut steps = 0;
    for (i, &c) in path.iter().enumerate() {
        buf.clear();
        model.lane_marks(&s, c, &mut buf);
        marks.extend(buf.drain(..).map(|m| (i + 1, m, false)));
        steps = i + 1;
        if let Err(e) = model.step(&mut s, c) {
            end = format!("step {} ends in {}: {}", i + 1, e.kind, e.shown_message(model.kind()));
            break;
        }
    }
    if end.is_empty() {
        let mut enabled = Vec::new();
        model.enabled(&s, &mut enabled);
        if enabled.is_empty() && model.deadlock_is_error() {
            for c in 0..model.choices() {
                buf.clear();
                model.lane_marks(&s, c, &mut buf);
                marks.extend(buf.drain(..).map(|m| (steps + 1, m, true)));
            }
            let stuck = marks.iter().filter(|m| m.2).count();
            end = if stuck == 0 {
                "the schedule ends with every operation run".into()
            } else {
                format!("{stuck} thread(s) stuck: nothing can run (dashed: what each would run next)")
            };
        } else if enabled.is_empty() {
            end = "the schedule ends with nothing enabled".into();
        } else {
            end = format!("the schedule ends with {} choice(s) still enabled", enabled.len());
        }
    }
    // Only the lanes with something on them, in the model's order (a trace's threads that take
    // no part in this schedule would only widen it).
    let mut used = vec![false; all_lanes.len()];
    for m in &marks {
        used[m.1.lane] = true;
    }
    let mut new_index = vec![0; all_lanes.len()];
    let mut lanes = Vec::new();
    for (i, lane) in all_lanes.into_iter().enumerate() {
        if used[i] {
            new_index[i] = lanes.len();
            lanes.push(lane);
        }
    }
    let left_out = used.len() - lanes.len();
    for m in &mut marks {
        m.1.lane = new_index[m.1.lane];
    }
    // Which marks the diagram is about.
    let mut chosen: Vec<usize> = Vec::new();
    let lane_of = |name: &str| lanes.iter().position(|l| l.name == name);
    match marked {
        Marked::Ops(a, b) => {
            for op in [a, b] {
                chosen.extend(marks.iter().position(|m| m.1.op == Some(op) && !m.2));
            }
        }
        Marked::Conflict(c) => {
            let writes = |lane: Option<usize>, before: usize| {
                marks[..before].iter().rposition(|m| {
                    Some(m.1.lane) == lane && m.1.access.as_ref().is_some_and(|(o, w)| *w && *o == c.variable)
                })
            };
            if let Some(now) = writes(lane_of(&c.app), marks.len()) {
                chosen.extend(writes(lane_of(&c.last_app), now));
                chosen.push(now);
            }
        }
        Marked::Stuck => chosen.extend((0..marks.len()).filter(|&i| marks[i].2)),
        Marked::Last(app) => {
            let lane = app.and_then(lane_of);
            let last: Vec<usize> = (0..marks.len()).filter(|&i| marks[i].0 == steps && !marks[i].2).collect();
            let on_lane: Vec<usize> = last.iter().copied().filter(|&i| Some(marks[i].1.lane) == lane).collect();
            chosen.extend(match on_lane.last() {
                Some(&i) => vec![i],
                None => last.last().copied().into_iter().collect(),
            });
        }
        Marked::Nothing => {}
    }
    let folded = fold(&lanes, &marks, &chosen)
        .map(|(lanes, marks)| Box::new(layout(lanes, marks, &chosen, Ends { steps, end: end.clone(), left_out })));
    Diagram { folded, ..layout(lanes, marks, &chosen, Ends { steps, end, left_out }) }
}

/// What a diagram says of its schedule beside its rows.
struct Ends {
    steps: usize,
    end: String,
    left_out: usize,
}

/// The lanes that hold a mark of `chosen` in full, the others folded into one lane after them:
/// `None` when there are no more than [`FOLD_OVER`] lanes, or no pair to keep.
fn fold(
    lanes: &[Lane],
    marks: &[(usize, LaneMark, bool)],
    chosen: &[usize],
) -> Option<(Vec<Lane>, Vec<(usize, LaneMark, bool)>)> {
    let mut keep = vec![false; lanes.len()];
    for &i in chosen {
        keep[marks[i].1.lane] = true;
    }
    let kept = keep.iter().filter(|&&k| k).count();
    if lanes.len() <= FOLD_OVER || kept == 0 || kept == lanes.len() {
        return None;
    }
    let mut index = vec![kept; lanes.len()];
    let mut out: Vec<Lane> = Vec::with_capacity(kept + 1);
    for (i, lane) in lanes.iter().enumerate().filter(|&(i, _)| keep[i]) {
        index[i] = out.len();
        out.push(lane.clone());
    }
    let folded: Vec<&str> = (0..lanes.len()).filter(|&i| !keep[i]).map(|i| lanes[i].name.as_str()).collect();
    out.push(Lane { name: format!("{} other lanes: {}", folded.len(), folded.join(", ")), kind: LaneKind::Folded });
    let marks = marks
        .iter()
        .map(|(step, m, pending)| {
            let mut m = m.clone();
            if !keep[m.lane] {
                // On the folded lane a mark says whose it is; handlers of several lanes would
                // interleave there, so no boxes.
                m.label = format!("{}: {}", lanes[m.lane].name, m.label);
                m.text = format!("{}: {}", lanes[m.lane].name, m.text);
                m.handler = None;
            }
            m.lane = index[m.lane];
            (*step, m, *pending)
        })
        .collect();
    Some((out, marks))
}

/// Rows and lines of `marks` on `lanes`, `chosen` (indices into `marks`) outlined.
fn layout(lanes: Vec<Lane>, marks: Vec<(usize, LaneMark, bool)>, chosen: &[usize], ends: Ends) -> Diagram {
    let Ends { steps, end, left_out } = ends;
    let keep = kept_marks(marks.len(), chosen);
    let cut = keep.iter().filter(|&&k| !k).count();
    // Rows: a box's start before its first mark; a gap where marks are left out.
    let mut rows = Vec::new();
    let mut row_of = vec![usize::MAX; marks.len()];
    let mut open: Vec<Option<(String, Option<u64>, usize)>> = vec![None; lanes.len()];
    for (i, (step, mark, pending)) in marks.into_iter().enumerate() {
        if !keep[i] {
            match rows.last_mut() {
                Some(Row::Gap { marks, to, .. }) => (*marks, *to) = (*marks + 1, step),
                _ => {
                    rows.push(Row::Gap { marks: 1, from: step, to: step });
                    // A handler's box does not reach across a gap: the next mark opens another.
                    open.iter_mut().for_each(|o| *o = None);
                }
            }
            continue;
        }
        // The same access again in the same run of a handler: counted on the row before.
        if let Some(Row::Mark { step: s, mark: m, pending: p, times }) = rows.last_mut() {
            if *s == step && *p == pending && mark.op.is_none() && *m == mark && !chosen.contains(&i) {
                *times += 1;
                row_of[i] = rows.len() - 1;
                continue;
            }
        }
        let key = mark.handler.as_ref().map(|(n, id)| (n.clone(), *id, if id.is_some() { 0 } else { step }));
        if key.is_some() && open[mark.lane] != key {
            let name = mark.handler.as_ref().map(|h| h.0.clone()).unwrap_or_default();
            rows.push(Row::BoxStart { lane: mark.lane, name });
        }
        open[mark.lane] = key;
        row_of[i] = rows.len();
        rows.push(Row::Mark { step, mark, pending, times: 1 });
    }
    let marked = chosen.iter().map(|&i| row_of[i]).filter(|&r| r != usize::MAX).collect();
    // Lines: one per row, but the stuck operations (one per lane) side by side on one.
    let mut line = Vec::with_capacity(rows.len());
    let mut next = 0;
    let mut stuck_line: Option<(usize, Vec<usize>)> = None;
    for r in &rows {
        match r {
            Row::Mark { pending: true, mark, .. } => {
                let (l, lanes_on) = stuck_line.get_or_insert_with(|| (next, Vec::new()));
                if lanes_on.contains(&mark.lane) {
                    *l = next;
                    lanes_on.clear();
                }
                if *l == next {
                    next += 1;
                }
                lanes_on.push(mark.lane);
                line.push(*l);
            }
            _ => {
                line.push(next);
                next += 1;
            }
        }
    }
    Diagram { lanes, rows, line, marked, steps, cut, end, left_out, folded: None }
}

/// Which of `n` marks a diagram draws: all of them up to [`MAX_ROWS`]; past it, the marks of the
/// pair it is about (`chosen`) and as many marks around each as fit in [`MAX_ROWS`] together
/// (the pair's neighbourhood, wherever in the schedule it is), or the first [`MAX_ROWS`] when
/// there is no pair.
pub fn kept_marks(n: usize, chosen: &[usize]) -> Vec<bool> {
    if n <= MAX_ROWS {
        return vec![true; n];
    }
    if chosen.is_empty() {
        return (0..n).map(|i| i < MAX_ROWS).collect();
    }
    let mut centres: Vec<usize> = chosen.iter().copied().filter(|&c| c < n).collect();
    centres.sort_unstable();
    centres.dedup();
    // Marks kept with `w` marks on each side of every centre, windows merged.
    let count = |w: usize| {
        let (mut total, mut reach) = (0, 0);
        for &c in &centres {
            let (lo, hi) = (c.saturating_sub(w).max(reach), (c + w + 1).min(n));
            total += hi.saturating_sub(lo);
            reach = reach.max(hi);
        }
        total
    };
    // The widest windows that fit (the pair itself always does).
    let (mut lo, mut hi) = (0, MAX_ROWS);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if count(mid) <= MAX_ROWS {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut keep = vec![false; n];
    for &c in &centres {
        keep[c.saturating_sub(lo)..(c + lo + 1).min(n)].fill(true);
    }
    keep
}

/// `colour` mixed with white, `white` parts in 1.
fn pale((r, g, b): (u8, u8, u8), white: f64) -> String {
    let mix = |c: u8| (c as f64 * (1.0 - white) + 255.0 * white).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(r), mix(g), mix(b))
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// `s` cut to `n` characters, with `…` when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

const ROW: f64 = 18.0;
const HEAD: f64 = 40.0;
const AXIS: f64 = 46.0;

/// The diagram as inline SVG, `width` pixels wide at most (lanes are never narrower than 110).
pub fn svg(d: &Diagram, width: f64) -> String {
    let n = d.lanes.len().max(1);
    let col = ((width - AXIS - 8.0) / n as f64).clamp(120.0, 220.0);
    let total_w = AXIS + col * n as f64 + 8.0;
    let top = HEAD + 8.0;
    let lines = d.line.last().map_or(0, |l| l + 1);
    let total_h = top + ROW * lines as f64 + 14.0;
    let mut out = format!(
        "<svg class=\"lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{total_w:.0}\" height=\"{total_h:.0}\" \
viewBox=\"0 0 {total_w:.0} {total_h:.0}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"11\">\n"
    );
    let x_of = |lane: usize| AXIS + col * lane as f64;
    let y_of = |row: usize| top + ROW * d.line[row] as f64;
    // Lanes: a solid header, a pale body.
    for (i, lane) in d.lanes.iter().enumerate() {
        let c = LANE_COLOURS[i % LANE_COLOURS.len()];
        let x = x_of(i);
        let kind = match lane.kind {
            LaneKind::Thread => "thread",
            LaneKind::Looper => "looper: runs handlers",
            LaneKind::App => "app",
            LaneKind::Environment => "fires the events",
            LaneKind::Folded => "folded: not in the pair",
        };
        let chars = ((col - 12.0) / 7.0) as usize;
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"0\" width=\"{:.1}\" height=\"{HEAD}\" rx=\"4\" fill=\"{}\"><title>{}</title></rect>\
<text x=\"{:.1}\" y=\"16\" fill=\"#fff\" font-weight=\"bold\" font-family=\"sans-serif\" font-size=\"12\">{}</text>\
<text x=\"{:.1}\" y=\"32\" fill=\"#fff\" font-family=\"sans-serif\" font-size=\"10\">{}</text>\
<rect x=\"{:.1}\" y=\"{HEAD}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"/>",
            x + 2.0,
            col - 4.0,
            hex(c),
            esc(&lane.name),
            x + 8.0,
            esc(&clip(&lane.name, chars)),
            x + 8.0,
            esc(&clip(kind, chars + 2)),
            x + 2.0,
            col - 4.0,
            total_h - HEAD,
            pale(c, 0.9)
        );
    }
    // Handler boxes: from a box's start row to the last mark of that run on its lane.
    for (r, row) in d.rows.iter().enumerate() {
        let Row::BoxStart { lane, name } = row else { continue };
        let mut last = r;
        for (k, next) in d.rows.iter().enumerate().skip(r + 1) {
            match next {
                Row::BoxStart { lane: l, .. } if l == lane => break,
                Row::Gap { .. } => break,
                Row::Mark { mark, .. } if mark.lane == *lane => {
                    if mark.handler.as_ref().map(|h| &h.0) != Some(name) {
                        break;
                    }
                    last = k;
                }
                _ => {}
            }
        }
        let c = LANE_COLOURS[lane % LANE_COLOURS.len()];
        let x = x_of(*lane);
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\" fill=\"#fff\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}</title></rect>\
<text x=\"{:.1}\" y=\"{:.1}\" font-family=\"sans-serif\" font-size=\"10\" font-weight=\"bold\" fill=\"{}\">{}</text>",
            x + 6.0,
            y_of(r) + 2.0,
            col - 12.0,
            ROW * (d.line[last] - d.line[r] + 1) as f64 - 2.0,
            pale(c, 0.2),
            esc(name),
            x + 11.0,
            y_of(r) + 13.0,
            pale(c, 0.3),
            esc(&clip(name, ((col - 20.0) / 6.0) as usize))
        );
    }
    // Steps on the axis, a faint rule where each begins.
    let mut last_step = 0;
    for (r, row) in d.rows.iter().enumerate() {
        let Row::Mark { step, pending, .. } = row else { continue };
        if *step == last_step {
            continue;
        }
        last_step = *step;
        let y = y_of(r);
        let label = if *pending { "stuck".to_string() } else { step.to_string() };
        let _ = writeln!(
            out,
            "<line x1=\"{AXIS}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#0002\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#666\" font-size=\"10\">{label}</text>",
            total_w - 8.0,
            AXIS - 6.0,
            y + 13.0
        );
    }
    // Gaps: where marks were left out, a dashed rule across and how many.
    for (r, row) in d.rows.iter().enumerate() {
        let Row::Gap { marks, from, to } = row else { continue };
        let y = y_of(r) + ROW / 2.0;
        let steps = if from == to { format!("step {from}") } else { format!("steps {from}-{to}") };
        let _ = writeln!(
            out,
            "<line x1=\"{AXIS}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#999\" stroke-dasharray=\"2 4\"/>\
<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#555\" font-family=\"sans-serif\" font-size=\"10\">{} not drawn ({steps})</text>",
            total_w - 8.0,
            AXIS + 6.0,
            y - 3.0,
            esc(&super::super::compare::plural(*marks, "mark"))
        );
    }
    // The pair joined, under the marks: from the side of one outline to the facing side of the
    // next (or around the left, on one lane).
    let outlined: Vec<(usize, f64)> = d
        .rows
        .iter()
        .enumerate()
        .filter(|(r, _)| d.marked.contains(r))
        .filter_map(|(r, row)| match row {
            Row::Mark { mark, .. } => Some((mark.lane, y_of(r) + ROW / 2.0)),
            _ => None,
        })
        .collect();
    for w in outlined.windows(2) {
        let ((l1, y1), (l2, y2)) = (w[0], w[1]);
        let (x1, x2, bend) = match l1.cmp(&l2) {
            std::cmp::Ordering::Less => (x_of(l1) + col - 8.0, x_of(l2) + 8.0, 24.0),
            std::cmp::Ordering::Greater => (x_of(l1) + 8.0, x_of(l2) + col - 8.0, -24.0),
            std::cmp::Ordering::Equal => (x_of(l1) + 8.0, x_of(l2) + 8.0, -6.0),
        };
        let c2 = if l1 == l2 { x2 + bend } else { x2 - bend };
        let _ = writeln!(
            out,
            "<path d=\"M{x1:.1} {y1:.1}C{:.1} {y1:.1} {c2:.1} {y2:.1} {x2:.1} {y2:.1}\" fill=\"none\" stroke=\"{MARKED}\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>",
            x1 + bend
        );
    }
    // The marks.
    for (r, row) in d.rows.iter().enumerate() {
        let Row::Mark { mark, pending, times, .. } = row else { continue };
        let (x, y) = (x_of(mark.lane), y_of(r));
        let (cx, cy) = (x + 16.0, y + ROW / 2.0);
        let is_marked = d.marked.contains(&r);
        let ink = if is_marked { MARKED } else { "#333" };
        if is_marked {
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"#fde0e0\" stroke=\"{MARKED}\" stroke-width=\"2\"/>",
                x + 8.0,
                y + 1.0,
                col - 16.0,
                ROW - 2.0
            );
        } else if *pending {
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"3\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>",
                x + 8.0,
                y + 1.0,
                col - 16.0,
                ROW - 2.0
            );
        }
        let glyph = match &mark.access {
            Some((_, true)) => {
                format!("<rect x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"{ink}\"/>", cx - 4.0, cy - 4.0)
            }
            Some((_, false)) => {
                format!("<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"4\" fill=\"#fff\" stroke=\"{ink}\" stroke-width=\"1.5\"/>")
            }
            None => format!(
                "<path d=\"M{cx:.1} {:.1}l4 4l-4 4l-4 -4z\" fill=\"{}\"/>",
                cy - 4.0,
                if is_marked { MARKED } else { "#888" }
            ),
        };
        let label = if *times > 1 { format!("{} ×{times}", mark.label) } else { mark.label.clone() };
        let chars = ((col - 32.0) / 6.7) as usize;
        let _ = writeln!(
            out,
            "<g><title>{}</title>{glyph}<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{ink}\">{}</text></g>",
            esc(&mark.text),
            cx + 8.0,
            y + 13.0,
            esc(&clip(&label, chars))
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The legend shown once above a page's diagrams.
pub fn legend() -> String {
    let mut out = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"760\" height=\"22\" font-family=\"sans-serif\" font-size=\"11\">",
    );
    let items = [
        ("<rect x=\"4\" y=\"7\" width=\"8\" height=\"8\" fill=\"#333\"/>", "write"),
        ("<circle cx=\"8\" cy=\"11\" r=\"4\" fill=\"#fff\" stroke=\"#333\" stroke-width=\"1.5\"/>", "read"),
        ("<path d=\"M8 7l4 4l-4 4l-4 -4z\" fill=\"#888\"/>", "other operation"),
        ("<rect x=\"2\" y=\"4\" width=\"14\" height=\"14\" rx=\"3\" fill=\"#fff\" stroke=\"#555\" stroke-width=\"1.5\"/>", "handler"),
        ("<rect x=\"2\" y=\"4\" width=\"14\" height=\"14\" rx=\"3\" fill=\"#fde0e0\" stroke=\"#d62728\" stroke-width=\"2\"/>", "the pair (race, conflict, stuck)"),
        ("<rect x=\"2\" y=\"4\" width=\"14\" height=\"14\" rx=\"3\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>", "stuck: would run next"),
    ];
    let mut x = 0.0;
    for (glyph, label) in items {
        let _ = write!(out, "<g transform=\"translate({x:.0} 0)\">{glyph}<text x=\"20\" y=\"15\">{label}</text></g>");
        x += 30.0 + label.len() as f64 * 5.6;
    }
    out.push_str("</svg>");
    out
}
