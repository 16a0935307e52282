//! Reading a case in-process, with panics caught and time and output bounded, and
//! judging what the reader did against the documented invariants and the case's
//! expectation. The judge knows nothing of the readers' code.

use super::corpus::{generic_spec, Case, Expect, Target};
use super::report::Violation;
use std::cell::{Cell, RefCell};
use std::io::Cursor;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;
use std::time::{Duration, Instant};
use wafer_trace::reader::BATCH;
use wafer_trace::{Format, ReadOptions, Request, NO_TIME};

/// Wall time one reading may take. A case takes well under a millisecond; this only
/// catches a reader stuck in a loop that still returns batches (the test's watchdog
/// catches one that never returns).
pub const DEADLINE: Duration = Duration::from_secs(5);

/// Requests one input byte may yield, over the whole input: a lackey `M` line of six
/// bytes yields two, a gzip byte inflates to at most about a thousand bytes. A 24 KiB
/// input may thus yield at most about 3 million requests; more means a reader that
/// makes requests out of nothing.
pub const PER_BYTE: usize = 128;

/// Highest address a request may reach: beyond 8 PiB, page keys alias
/// (`request.rs`, `DEV_SHIFT`), so readers must refuse such requests.
pub const ADDRESS_LIMIT: u64 = 1 << 53;

/// Device numbers sit above bit 44 of a page key and must stay below 2^20.
pub const DEV_LIMIT: u32 = 1 << 20;

thread_local! {
    /// Whether a panic on this thread is expected and caught (recorded, not printed).
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Install a panic hook that records caught panics instead of printing thousands of
/// them; panics elsewhere print as usual.
pub fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                LAST_PANIC.set(Some(info.to_string()));
            } else {
                default(info);
            }
        }));
    });
}

/// What a reader did with an input.
#[derive(Debug)]
pub struct Reading {
    /// The format it opened the input as (`None` when opening failed).
    pub format: Option<Format>,
    /// Every request, or the error's message.
    pub result: Result<Vec<Request>, String>,
}

/// How a reading opened its input, as reports name it.
pub fn mode(forced: bool) -> &'static str {
    if forced {
        "forced"
    } else {
        "detect"
    }
}

/// Read `case` as the library's users do, detecting the format or forcing it. `.wtr`
/// needs a file (it is written to `name`); every other input is read from memory
/// under `name`, which error messages must show.
pub fn read(case: &Case, forced: bool, name: &Path) -> Result<Reading, Violation> {
    let target = case.target;
    let opts = ReadOptions {
        format: forced.then(|| target.format()),
        skip_invalid: false,
        instructions: true,
        // Detection of generic text is tried without a mapping: it must not be guessed.
        generic: (forced && target == Target::Generic).then(generic_spec),
    };
    let mode = mode(forced);
    let fail = |class, detail| Violation {
        mode,
        class,
        detail,
    };
    let cap = PER_BYTE * case.input.len() + BATCH;
    if target == Target::Wtr {
        std::fs::write(name, &case.input).expect("writing the scratch .wtr");
    }
    let start = Instant::now();
    QUIET.set(true);
    let run = panic::catch_unwind(AssertUnwindSafe(|| {
        let opened = if target == Target::Wtr {
            wafer_trace::open(name, &opts)
        } else {
            wafer_trace::reader::open_stream(name, Box::new(Cursor::new(case.input.clone())), &opts)
        };
        let mut reader = match opened {
            Ok(r) => r,
            Err(e) => {
                return Ok(Reading {
                    format: None,
                    result: Err(e.to_string()),
                })
            }
        };
        let format = reader.meta().format;
        let (mut all, mut batch) = (Vec::new(), Vec::new());
        loop {
            let more = match reader.read_batch(&mut batch) {
                Ok(more) => more,
                Err(e) => {
                    return Ok(Reading {
                        format,
                        result: Err(e.to_string()),
                    })
                }
            };
            if batch.len() > BATCH {
                let detail = format!("{} requests in one batch", batch.len());
                return Err(fail("batch larger than BATCH", detail));
            }
            if !more && !batch.is_empty() {
                let detail = format!("{} requests left in the last batch", batch.len());
                return Err(fail("requests returned with Ok(false)", detail));
            }
            all.extend_from_slice(&batch);
            if !more {
                return Ok(Reading {
                    format,
                    result: Ok(all),
                });
            }
            if all.len() > cap {
                let detail = format!("{} requests from {} bytes", all.len(), case.input.len());
                return Err(fail("too many requests for the input size", detail));
            }
            if start.elapsed() > DEADLINE {
                let detail = format!("{} requests after {DEADLINE:?}", all.len());
                return Err(fail("reading too slow", detail));
            }
        }
    }));
    QUIET.set(false);
    run.unwrap_or_else(|_| {
        let msg = LAST_PANIC
            .take()
            .unwrap_or_else(|| "(no message)".to_string());
        Err(fail("panic", msg))
    })
}

/// Read `case` both ways and judge each reading; `scratch` holds the `.wtr` file.
pub fn check(case: &Case, scratch: &Path) -> Vec<Violation> {
    let name = scratch.join(format!("case.{}", case.target.extension()));
    [false, true]
        .into_iter()
        .filter_map(|forced| match read(case, forced, &name) {
            Ok(reading) => judge(case, forced, &name, &reading),
            Err(v) => Some(v),
        })
        .collect()
}

/// The first promise `reading` breaks, if any: an error must be one line naming the
/// file; a detected format must be the expected one; requests must keep the
/// invariants, then match the case's expectation.
pub fn judge(case: &Case, forced: bool, name: &Path, reading: &Reading) -> Option<Violation> {
    let target = case.target;
    let fail = |class, detail| {
        Some(Violation {
            mode: mode(forced),
            class,
            detail,
        })
    };
    let want = if forced {
        Some(target.format())
    } else {
        target.detected()
    };
    if let Some(got) = reading.format.filter(|&f| Some(f) != want) {
        let binary = matches!(got, Format::Wtr | Format::Vscsi | Format::OracleGeneral);
        let class = if target.is_text() && binary {
            "text detected as a binary format"
        } else {
            "wrong format detected"
        };
        let want = want.map_or("none (generic text is never guessed)", Format::name);
        let outcome = match &reading.result {
            Ok(reqs) => format!("{} requests read", reqs.len()),
            Err(e) => format!("then failed: {e}"),
        };
        return fail(
            class,
            format!("detected {}, expected {want}; {outcome}", got.name()),
        );
    }
    let reqs = match &reading.result {
        Ok(reqs) => reqs,
        Err(msg) => {
            if msg.chars().any(char::is_control) {
                return fail("error message not one line", format!("{msg:?}"));
            }
            if !msg.contains(&*name.to_string_lossy()) {
                return fail("error message without the file name", msg.clone());
            }
            return None;
        }
    };
    if let Some((class, detail)) = invariants(target, reqs) {
        return fail(class, detail);
    }
    let (class, detail) = against(&case.expect, reqs)?;
    fail(class, detail)
}

/// The invariants every request of every reader keeps. (Its op is a `Read`, `Write` or
/// `Trim` by its type.)
fn invariants(target: Target, reqs: &[Request]) -> Option<(&'static str, String)> {
    reqs.iter().enumerate().find_map(|(i, q)| {
        let class = match q.offset.checked_add(u64::from(q.len)) {
            None => "offset + len overflows u64",
            Some(end) if end > ADDRESS_LIMIT => "offset + len beyond 2^53",
            _ if q.dev >= DEV_LIMIT => "device number of 2^20 or more",
            _ if q.time_ns == NO_TIME && target.timed() => "no timestamp in a timed format",
            _ => return None,
        };
        Some((class, format!("request {i} of {}: {q:?}", reqs.len())))
    })
}

/// Whether `got` is what the case allows.
fn against(expect: &Expect, got: &[Request]) -> Option<(&'static str, String)> {
    match expect {
        Expect::OneOf(class, allowed) => {
            let closest = allowed
                .iter()
                .find(|a| a.len() == got.len())
                .unwrap_or(&allowed[0]);
            (!allowed.iter().any(|a| a == got)).then(|| (*class, differ(got, closest)))
        }
        Expect::Refuse { class, at } => Some((
            *class,
            format!(
                "{} requests read; request {at}: {:?}",
                got.len(),
                got.get(*at)
            ),
        )),
        Expect::Splice { model, head, tail } => {
            let (n, m) = (got.len(), model.len());
            let detail = if n < head + tail {
                format!(
                    "{n} requests read, the {head} before and {tail} after the edit alone are more"
                )
            } else if got[..*head] != model[..*head] {
                format!(
                    "before the edit: {}",
                    differ(&got[..*head], &model[..*head])
                )
            } else if got[n - tail..] != model[m - tail..] {
                format!(
                    "after the edit (the last {tail} requests): {}",
                    differ(&got[n - tail..], &model[m - tail..])
                )
            } else {
                return None;
            };
            Some(("edit changed records it did not touch", detail))
        }
    }
}

/// Where two request lists first differ.
fn differ(got: &[Request], want: &[Request]) -> String {
    let i = got.iter().zip(want).take_while(|(a, b)| a == b).count();
    format!(
        "{} requests read, {} expected; first difference at {i}: read {:?}, expected {:?}",
        got.len(),
        want.len(),
        got.get(i),
        want.get(i)
    )
}
