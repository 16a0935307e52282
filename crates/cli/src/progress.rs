//! Progress bars for long work, drawn on stderr only when it is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over `total` units (bytes or items), hidden when stderr is not a
/// terminal or `total` is 0.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(total);
    if !std::io::stderr().is_terminal() || total == 0 {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:32}] {percent:>3}% {per_sec} eta {eta}",
        )
        .expect("static template")
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

/// A spinner counting units of unknown total (hidden when stderr is not a terminal).
pub fn counter(what: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} {human_pos} accesses {per_sec}")
            .expect("static template"),
    );
    pb.set_message(what.to_string());
    pb
}
