//! Progress bars for long work, drawn on stderr only when it is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A rate as a person reads it: three significant digits and a unit prefix, per
/// second (`7.11 M/s`, `312/s`, `0.52/s`).
pub fn rate(per_sec: f64) -> String {
    let (v, prefix) = match per_sec {
        r if r >= 1e9 => (r / 1e9, " G"),
        r if r >= 1e6 => (r / 1e6, " M"),
        r if r >= 1e3 => (r / 1e3, " k"),
        r => (r, ""),
    };
    let digits = match v {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    format!("{v:.digits$}{prefix}/s")
}

/// The style with `{rate}` drawn by [`rate`] (indicatif's own `{per_sec}` prints
/// every digit it has).
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("static template")
        .with_key(
            "rate",
            |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate(s.per_sec()));
            },
        )
}

/// A progress bar over `total` units (bytes or items), hidden when stderr is not a
/// terminal or `total` is 0.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(total);
    if !std::io::stderr().is_terminal() || total == 0 {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        style("{spinner} {msg} [{bar:32}] {percent:>3}% of {human_len}, {rate}, eta {eta}")
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// A spinner counting page accesses of unknown total (hidden when stderr is not a
/// terminal); the message says what the total is made of.
pub fn counter(what: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(style("{spinner} {msg}: {human_pos} page accesses, {rate}"));
    pb.set_message(what.to_string());
    pb
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_read_at_a_glance() {
        assert_eq!(rate(7_114_023.067_2), "7.11 M/s");
        assert_eq!(rate(312.4), "312/s");
        assert_eq!(rate(0.523), "0.52/s");
        assert_eq!(rate(45_600.0), "45.6 k/s");
        assert_eq!(rate(2.5e9), "2.50 G/s");
    }
}
