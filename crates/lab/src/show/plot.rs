//! SVG charts: lines, scatter and grouped bars, written directly as SVG text.
//!
//! Writing the few chart types wafer needs by hand keeps the build small and the
//! output exact: 720 x 440 user units (about 19 x 11.6 cm at 96 dpi, legible when
//! scaled to a paper column), DejaVu Sans / sans-serif text at 13-15 px, axes with
//! "nice" ticks, a legend at the right. Every series is one
//! `<g class="series" data-series="NAME">` group whose first child is
//! `<title>NAME</title>`, so tools (and the tests) can find the series by name.

use std::fmt::Write;

/// Colours of the series, in order (colour-blind-safe palette of Okabe and Ito,
/// then greys).
const PALETTE: [&str; 10] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
    "#777777", "#AA4499",
];

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
/// Width of a character of 13 px text, about (DejaVu Sans averages 0.55 em).
const CHAR_W: f64 = 7.5;
/// Line height of the notes under the plot.
const NOTE_H: f64 = 17.0;
/// Characters of 12 px text a note line holds across the chart.
const NOTE_CHARS: usize = 100;

/// How series are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Lines with point markers.
    Line,
    /// Points only.
    Scatter,
    /// Grouped bars at categorical x positions `0, 1, ...`.
    Bars,
}

/// One named series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
}

/// A chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Title above the plot.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Categorical x tick labels at x = 0, 1, ... (instead of numeric ticks); a
    /// `\n` starts a second line.
    pub categories: Option<Vec<String>>,
    /// Drawing style.
    pub kind: Kind,
    /// Series.
    pub series: Vec<Series>,
    /// Start the y axis at 0 (ignored on a log axis); see [`starts_at_zero`] for
    /// when not to. Otherwise the axis spans the data from a round tick, and a line
    /// or bar chart whose axis then misses 0 is drawn with a break on the y axis and
    /// a note saying so (a scatter's positions, such as page numbers, need none).
    pub y_from_zero: bool,
    /// Logarithmic y axis (for positive values spanning decades; see
    /// [`spans_decades`]).
    pub log_y: bool,
    /// Lines of text under the plot, such as a key to short tick labels; the chart
    /// grows to hold them, so a standalone figure file carries its own key.
    pub notes: Vec<String>,
}

/// Whether the positive y values of `series` span at least two decades (then a log
/// axis shows the small ones), and none is zero or negative.
pub fn spans_decades(series: &[Series]) -> bool {
    let ys = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite());
    let (mut lo, mut hi, mut any) = (f64::MAX, f64::MIN, false);
    for y in ys {
        if y <= 0.0 {
            return false;
        }
        lo = lo.min(y);
        hi = hi.max(y);
        any = true;
    }
    any && hi / lo >= 100.0
}

/// Whether a linear y axis over `series` should include 0.
///
/// A zero-based axis lets lengths and ratios be read off the chart, so it is the
/// default. But when every value has the same sign and the values differ by at most
/// a quarter of the largest magnitude (hit ratios of 0.90-0.95, WAFs of 1.02-1.10,
/// erase counts a few percent apart), a zero-based axis squeezes the data into a
/// thin band and hides the differences under study. Then the axis spans the data
/// instead, and the chart marks it ([`Chart::svg`] draws a break on the y axis and
/// says that the axis does not start at 0). The rule depends only on the data, never
/// on which experiment drew it.
pub fn starts_at_zero(series: &[Series]) -> bool {
    let ys = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite());
    let (mut lo, mut hi, mut any) = (f64::MAX, f64::MIN, false);
    for y in ys {
        lo = lo.min(y);
        hi = hi.max(y);
        any = true;
    }
    let same_sign = lo > 0.0 || hi < 0.0;
    !(any && same_sign && hi - lo <= SMALL_SPREAD * hi.abs().max(lo.abs()))
}

/// Largest spread, as a share of the largest magnitude, that [`starts_at_zero`]
/// still zooms in on.
const SMALL_SPREAD: f64 = 0.25;

/// Ticks of a log axis over `lo..=hi` (both > 0): powers of ten, with 2 and 5 in
/// between when the range spans few decades.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let mults: &[f64] = if b - a <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut t = Vec::new();
    for e in a..=b {
        for m in mults {
            let v = m * 10f64.powi(e);
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                t.push(v);
            }
        }
    }
    t
}

/// Escape text for XML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The step of about five round ticks over `lo..=hi` (1, 2, 2.5 or 5 times a power
/// of ten).
fn tick_step(lo: f64, hi: f64) -> f64 {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag)
}

/// Ticks covering `lo..=hi`, at multiples of [`tick_step`].
fn nice_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = tick_step(lo, hi);
    let first = (lo / step).ceil() * step;
    let mut t = Vec::new();
    let mut v = first;
    while v <= hi + step * 1e-9 && t.len() < 20 {
        t.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
        v += step;
    }
    t
}

/// A tick label: integers plainly, large values with k/M/G, else 3 significant digits.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else if v == v.trunc() {
        format!("{v:.0}")
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

impl Chart {
    /// Whether the chart has at least one point to draw.
    pub fn has_data(&self) -> bool {
        self.series.iter().any(|s| !s.points.is_empty())
    }

    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let pts = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts.filter(|(x, y)| x.is_finite() && y.is_finite()) {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if let Some(c) = &self.categories {
            x0 = -0.5;
            x1 = c.len().max(1) as f64 - 0.5;
        }
        if self.log_y && y0 > 0.0 {
            // Whole decades around the data.
            let lo = 10f64.powf(y0.log10().floor());
            let hi = 10f64.powf(y1.log10().ceil());
            return ((x0, x1), (lo, hi));
        }
        if self.y_from_zero {
            // 0 inside the axis from either side: all-negative values (reductions
            // against a baseline) hang from 0 as positive ones stand on it.
            y0 = y0.min(0.0);
            y1 = y1.max(0.0);
        }
        if x1 - x0 < 1e-12 {
            x0 -= 0.5;
            x1 += 0.5;
        }
        if y1 - y0 < 1e-12 {
            y1 = y0 + if y0 == 0.0 { 1.0 } else { y0.abs() * 0.1 };
        }
        let pad = (y1 - y0) * 0.05;
        let (lo, hi) = (y0, y1);
        let y1 = if hi == 0.0 { 0.0 } else { hi + pad };
        let mut y0 = if lo == 0.0 { 0.0 } else { lo - pad };
        if lo > 0.0 {
            // Start at the round tick below, so the first label states where the axis
            // starts; an axis that would reach 0 anyway starts at 0.
            // Widening the range may change the step: snap again until it holds.
            let start = y0;
            for _ in 0..4 {
                let step = tick_step(y0, y1);
                let snapped = ((start / step).floor() * step).max(0.0);
                let done = tick_step(snapped, y1) == step;
                y0 = if snapped < step * 1e-9 { 0.0 } else { snapped };
                if done {
                    break;
                }
            }
        }
        ((x0, x1), (y0, y1))
    }

    /// The chart as a standalone SVG document.
    pub fn svg(&self) -> String {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let log = self.log_y && y0 > 0.0;
        let pw = W - LEFT - RIGHT;
        let cats = self.categories.as_deref().unwrap_or_default();
        let slot_w = pw / cats.len().max(1) as f64;
        // Category labels wider than their slot are turned by 40 degrees, and the
        // plot gives them the room, up to a limit; a label longer than the room (or
        // than the space left of its tick) is cut with an ellipsis, never clipped by
        // the figure's edge.
        let widest_line = cats
            .iter()
            .flat_map(|l| l.lines())
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0);
        let turn = widest_line as f64 * CHAR_W + 6.0 > slot_w;
        let lines = cats.iter().map(|l| l.lines().count()).max().unwrap_or(1);
        let (sin, cos) = (40f64.to_radians().sin(), 40f64.to_radians().cos());
        let widest = cats.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let bottom = if turn {
            BOTTOM + (widest as f64 * CHAR_W * sin).min(130.0)
        } else {
            BOTTOM + 15.0 * (lines.max(1) - 1) as f64
        };
        let wrapped = wrap(&self.notes, NOTE_CHARS);
        let notes_h = if wrapped.is_empty() {
            0.0
        } else {
            8.0 + NOTE_H * wrapped.len() as f64
        };
        let h = H + notes_h;
        let ph = H - TOP - bottom;
        let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| {
            let f = if log {
                (y.log10() - y0.log10()) / (y1.log10() - y0.log10())
            } else {
                (y - y0) / (y1 - y0)
            };
            TOP + ph - f * ph
        };
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {h}" width="{W}" height="{h}" font-family="DejaVu Sans, Verdana, sans-serif" font-size="13">"#
        );
        let _ = write!(s, "<title>{}</title>", esc(&self.title));
        let _ = write!(s, r##"<rect width="{W}" height="{h}" fill="#ffffff"/>"##);
        let _ = write!(
            s,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
            LEFT + pw / 2.0,
            esc(&self.title)
        );
        // Grid and y ticks.
        let yticks = if log {
            log_ticks(y0, y1)
        } else {
            nice_ticks(y0, y1)
        };
        for t in yticks {
            let y = sy(t);
            let _ = write!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + pw,
                LEFT - 6.0,
                y + 4.0,
                fmt_num(t)
            );
        }
        // X ticks.
        match &self.categories {
            Some(c) => {
                for (i, label) in c.iter().enumerate() {
                    let x = sx(i as f64);
                    let _ = write!(
                        s,
                        r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#333"/>"##,
                        TOP + ph,
                        TOP + ph + 5.0,
                    );
                    if turn {
                        // Room along the turned label: down to the x axis label's
                        // line, and left to the figure's edge.
                        let room = ((bottom - 30.0) / sin).min((x + 4.0) / cos);
                        let fit = (room / CHAR_W).floor().max(4.0) as usize;
                        let flat = label.lines().collect::<Vec<_>>().join(" ");
                        let _ = write!(
                            s,
                            r#"<text transform="translate({:.1} {:.1}) rotate(-40)" text-anchor="end"><title>{}</title>{}</text>"#,
                            x + 4.0,
                            TOP + ph + 16.0,
                            esc(&flat),
                            esc(&short(&flat, fit))
                        );
                    } else {
                        let _ = write!(
                            s,
                            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">"#,
                            TOP + ph + 20.0,
                        );
                        for (k, l) in label.lines().enumerate() {
                            let _ = write!(
                                s,
                                r#"<tspan x="{x:.1}" dy="{}">{}</tspan>"#,
                                if k == 0 { 0 } else { 15 },
                                esc(l)
                            );
                        }
                        s.push_str("</text>");
                    }
                }
            }
            None => {
                for t in nice_ticks(x0, x1) {
                    let x = sx(t);
                    let _ = write!(
                        s,
                        r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#333"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                        TOP + ph,
                        TOP + ph + 5.0,
                        TOP + ph + 20.0,
                        fmt_num(t)
                    );
                }
            }
        }
        let _ = write!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
        );
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 14.0,
            esc(&self.x_label)
        );
        let _ = write!(
            s,
            r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            TOP + ph / 2.0,
            esc(&self.y_label)
        );
        if !log && self.kind != Kind::Scatter && (y0 > 0.0 || y1 < 0.0) {
            s.push_str(&axis_break(if y0 > 0.0 {
                TOP + ph - 10.0
            } else {
                TOP + 10.0
            }));
        }
        for (k, l) in wrapped.iter().enumerate() {
            let _ = write!(
                s,
                r##"<text class="note" x="12" y="{:.1}" font-size="12" fill="#333">{}</text>"##,
                H + 6.0 + NOTE_H * (k as f64 + 0.8),
                esc(l)
            );
        }
        // Series.
        let n = self.series.len().max(1) as f64;
        let slot = pw / (x1 - x0) * 0.8 / n;
        // Legend rows: 20 px apart, closer when many series must fit the height.
        let step = (20.0f64).min((H - TOP - 20.0) / n);
        for (i, se) in self.series.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            // The palette repeats after ten series: the second round is told apart by
            // dashed lines, hollow markers and lighter bars.
            let second = (i / PALETTE.len()) % 2 == 1;
            let dash = if second {
                r#" stroke-dasharray="7 4""#
            } else {
                ""
            };
            let _ = write!(
                s,
                r#"<g class="series" data-series="{0}"><title>{0}</title>"#,
                esc(&se.name)
            );
            let pts: Vec<(f64, f64)> = se
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            match self.kind {
                Kind::Line => {
                    let path: Vec<String> = pts
                        .iter()
                        .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                        .collect();
                    let _ = write!(
                        s,
                        r#"<polyline fill="none" stroke="{c}" stroke-width="2"{dash} points="{}"/>"#,
                        path.join(" ")
                    );
                    if pts.len() <= 60 {
                        for &(x, y) in &pts {
                            let _ = write!(
                                s,
                                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" {}/>"#,
                                sx(x),
                                sy(y),
                                if second {
                                    format!(r##"fill="#ffffff" stroke="{c}" stroke-width="1.5""##)
                                } else {
                                    format!(r#"fill="{c}""#)
                                }
                            );
                        }
                    }
                }
                Kind::Scatter => {
                    for &(x, y) in &pts {
                        let _ = write!(
                            s,
                            r#"<rect x="{:.1}" y="{:.1}" width="2" height="2" fill="{c}"/>"#,
                            sx(x) - 1.0,
                            sy(y) - 1.0
                        );
                    }
                }
                Kind::Bars => {
                    for &(x, y) in &pts {
                        let left = sx(x) - slot * n / 2.0 + slot * i as f64;
                        let (top, base) = (sy(y.max(0.0)), sy(y0.max(0.0).min(y)));
                        let _ = write!(
                            s,
                            r#"<rect x="{left:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="{c}"{}/>"#,
                            slot * 0.9,
                            (base - top).max(0.0),
                            if second {
                                format!(r#" fill-opacity="0.45" stroke="{c}""#)
                            } else {
                                String::new()
                            }
                        );
                    }
                }
            }
            // Legend entry.
            let ly = TOP + 10.0 + step * i as f64;
            let lx = LEFT + pw + 14.0;
            if self.kind == Kind::Line && second {
                let _ = write!(
                    s,
                    r#"<line x1="{lx:.1}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="{c}" stroke-width="2" stroke-dasharray="4 2"/>"#,
                    ly - 4.0,
                    lx + 16.0
                );
            } else {
                let _ = write!(
                    s,
                    r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="10" fill="{c}"{}/>"#,
                    ly - 9.0,
                    if second {
                        format!(r#" fill-opacity="0.45" stroke="{c}""#)
                    } else {
                        String::new()
                    }
                );
            }
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text></g>"#,
                lx + 20.0,
                ly,
                esc(&short(&se.name, 18))
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// The mark of a y axis that does not reach 0: the axis line cut by two slanted
/// strokes at `y`, and a note above the plot, in a `<g class="axis-break">`.
fn axis_break(y: f64) -> String {
    let mut s = String::from(r#"<g class="axis-break">"#);
    let _ = write!(
        s,
        r##"<rect x="{:.1}" y="{:.1}" width="10" height="6" fill="#ffffff"/>"##,
        LEFT - 5.0,
        y - 3.0
    );
    for dy in [-3.0, 3.0] {
        let _ = write!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#333"/>"##,
            LEFT - 7.0,
            y + dy + 2.0,
            LEFT + 7.0,
            y + dy - 2.0
        );
    }
    let _ = write!(
        s,
        r##"<text x="{LEFT}" y="{:.1}" font-size="11" fill="#555">y axis does not start at 0</text></g>"##,
        TOP - 3.0
    );
    s
}

/// `notes` broken at spaces into lines of at most `n` characters (a longer word
/// stays whole); continuation lines are indented.
fn wrap(notes: &[String], n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for note in notes {
        let mut line = String::new();
        for w in note.split(' ') {
            if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > n {
                out.push(std::mem::take(&mut line));
                line.push_str("    ");
            }
            if !line.is_empty() && !line.ends_with("    ") {
                line.push(' ');
            }
            line.push_str(w);
        }
        out.push(line);
    }
    out
}

/// `s` cut to `n` characters with an ellipsis.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let t: Vec<f64> = nice_ticks(0.0, 1.0)
            .iter()
            .map(|v| (v * 1e6).round() / 1e6)
            .collect();
        assert_eq!(t, vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(nice_ticks(3.0, 47.0), vec![10.0, 20.0, 30.0, 40.0]);
        assert_eq!(fmt_num(25000.0), "25k");
        assert_eq!(fmt_num(0.25), "0.25");
        assert_eq!(log_ticks(1.0, 1000.0), vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(10.0, 100.0), vec![10.0, 20.0, 50.0, 100.0]);
    }

    #[test]
    fn decades_decide_the_log_axis() {
        let s = |ys: &[f64]| {
            vec![Series {
                name: "a".into(),
                points: ys.iter().map(|&y| (0.0, y)).collect(),
            }]
        };
        assert!(spans_decades(&s(&[1.0, 150.0])));
        assert!(!spans_decades(&s(&[1.0, 50.0])));
        assert!(!spans_decades(&s(&[0.0, 500.0])));
    }

    #[test]
    fn small_spreads_do_not_start_at_zero() {
        let s = |ys: &[f64]| {
            vec![Series {
                name: "a".into(),
                points: ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect(),
            }]
        };
        // A few percent apart: the axis spans the data.
        assert!(!starts_at_zero(&s(&[100.0, 103.0, 101.5])));
        assert!(!starts_at_zero(&s(&[0.91, 0.95])));
        assert!(!starts_at_zero(&s(&[-5.0, -4.8])));
        // Large spreads, values at or across 0, and no data: from 0.
        assert!(starts_at_zero(&s(&[10.0, 100.0])));
        assert!(starts_at_zero(&s(&[0.0, 0.5])));
        assert!(starts_at_zero(&s(&[-1.0, 1.0])));
        assert!(starts_at_zero(&s(&[])));
        let chart = |ys: &[f64]| Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: None,
            kind: Kind::Line,
            y_from_zero: starts_at_zero(&s(ys)),
            series: s(ys),
            log_y: false,
            notes: Vec::new(),
        };
        // The zoomed axis starts at a round tick below the data and is marked.
        let zoomed = chart(&[100.0, 103.0]);
        let (_, (y0, y1)) = zoomed.ranges();
        assert!(y0 > 90.0 && y0 <= 100.0 && y1 >= 103.0, "{y0} {y1}");
        assert!(nice_ticks(y0, y1).first() == Some(&y0), "{y0}");
        let svg = zoomed.svg();
        assert!(svg.contains(r#"class="axis-break""#));
        assert!(svg.contains("does not start at 0"));
        assert!(roxmltree::Document::parse(&svg).is_ok());
        let full = chart(&[10.0, 100.0]);
        assert_eq!(full.ranges().1 .0, 0.0);
        assert!(!full.svg().contains("axis-break"));
        // All below 0 and far apart (reductions of 4 % to 65 %): the axis ends at 0.
        let below = chart(&[-65.0, -4.0]);
        let (_, (y0, y1)) = below.ranges();
        assert!(y0 < -65.0 && y1 == 0.0, "{y0} {y1}");
        assert!(!below.svg().contains("axis-break"));
    }

    #[test]
    fn long_labels_are_cut_not_clipped_and_notes_make_room() {
        let label = "elapsed sorted-clock-wsr/lru-wsr paper-like | Pixel 6a";
        let c = Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: Some(vec![label.to_string(); 5]),
            kind: Kind::Bars,
            series: vec![Series {
                name: "a".into(),
                points: (0..5).map(|i| (i as f64, 1.0)).collect(),
            }],
            y_from_zero: true,
            log_y: false,
            notes: vec!["1. a key".into(), "word ".repeat(30)],
        };
        let svg = c.svg();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let root = doc.root_element();
        // Two notes, the second wrapped onto two lines.
        assert_eq!(root.attribute("height"), Some("499"));
        for t in doc.descendants().filter(|n| {
            n.attribute("transform")
                .is_some_and(|t| t.contains("rotate(-40)"))
        }) {
            let x: f64 = t.attribute("transform").unwrap()[10..]
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let shown: String = t
                .children()
                .filter(|n| n.is_text())
                .filter_map(|n| n.text())
                .collect();
            // Full label in the tooltip; the shown part fits left of its tick.
            assert_eq!(t.first_element_child().unwrap().text(), Some(label));
            let width = shown.chars().count() as f64 * CHAR_W * 40f64.to_radians().cos();
            assert!(width <= x, "{shown} at {x}");
        }
        // A two-line label stays flat when each line fits.
        let two = Chart {
            categories: Some(vec!["1. erases\nts-clock/fab".into()]),
            notes: Vec::new(),
            ..c
        };
        let svg = two.svg();
        assert!(svg.contains("<tspan") && !svg.contains("rotate(-40)"));
    }

    #[test]
    fn svg_parses_and_names_every_series() {
        let c = Chart {
            title: "a < b".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: Some(vec!["1MiB".into(), "2MiB".into()]),
            kind: Kind::Bars,
            series: vec![
                Series {
                    name: "lru".into(),
                    points: vec![(0.0, 1.0), (1.0, 2.0)],
                },
                Series {
                    name: "ts-clock:ppb=1024".into(),
                    points: vec![(0.0, 3.0), (1.0, f64::NAN)],
                },
            ],
            y_from_zero: true,
            log_y: false,
            notes: Vec::new(),
        };
        let svg = c.svg();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let names: Vec<&str> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("series"))
            .map(|n| n.attribute("data-series").unwrap())
            .collect();
        assert_eq!(names, ["lru", "ts-clock:ppb=1024"]);
    }
}
