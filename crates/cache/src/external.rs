//! Policies defined outside this crate (a user's Python class), run by the same
//! engine as the built-in ones.
//!
//! A built-in policy owns its residency and dirty bits; an external one should not
//! have to. [`External`] is a [`Policy`] that keeps what every policy shares (which
//! pages are resident, which are dirty, the write-back of a dirty victim, the clean
//! drop of a clean one, eviction groups) and asks a [`Chooser`] only what differs:
//! which page, or which ordered group of pages, leaves when a miss finds the cache
//! full. The chooser is told every hit, every insertion and every trim as an
//! [`Event`], so it can keep its own order; it names pages by their page number (the
//! key, [`crate::Access::key`]) and sees the erase-block number of each, so a
//! block-level policy can be written without dense ids.
//!
//! External policies are registered by name at run time ([`register`]), or found by a
//! resolver the host installs ([`set_resolver`]; the Python extension imports the
//! class a `py:module:Class` name gives). A name nobody can resolve is refused with a
//! hint to run it from Python. The dispatch to [`External`] is the one dynamic call
//! per access this path adds (to the chooser); built-in policies keep their static
//! dispatch.
//!
//! A chooser that answers wrongly (names a page that is not resident, names none while
//! the cache is full, or fails) stops the run with one error naming the policy and
//! the access index ([`Policy::FALLIBLE`]); the engine never counts past it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use wafer_trace::{block_key, Op};

use crate::policy::{Access, IoSink, ParamError, ParamSet, ParamSpec, Policy, PolicyCtx};
use crate::registry::PolicyInfo;

/// The prefix of an external policy's name (`py:module:Class`).
pub const PREFIX: &str = "py:";

/// What happened to a page, as a [`Chooser`] is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// An access found the page resident.
    Hit,
    /// A miss made the page resident (after any eviction it needed).
    Insert,
    /// A trim dropped the resident page (no I/O).
    Remove,
}

/// One event of a run, in the order the engine handled them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The page number (the page's key: page number with the device folded in).
    pub page: u64,
    /// Its erase-block number (page number div pages per block, device kept).
    pub block: u64,
    /// Whether the access was a write (false for a trim).
    pub write: bool,
    /// Index of the access in the access stream (for a trim: of the next access).
    pub index: u64,
}

/// What a chooser's hook got wrong: the access it was handling and a one-line message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChooserError {
    /// Index of the access whose event or eviction failed.
    pub index: u64,
    /// What went wrong, one line.
    pub msg: String,
}

/// The victims of one eviction, as a chooser names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Victims {
    /// Page numbers, in the order they leave (a group's write-backs go in this order).
    pub pages: Vec<u64>,
    /// Whether the pages form one eviction group (a block flush): the after-cache
    /// trace marks them as one, as a built-in block-level policy's flush.
    pub group: bool,
}

/// The decisions of an external policy. The [`External`] policy calls it; it may
/// defer events (a Python adapter batches them to cross into Python once per
/// eviction), but must have seen every earlier event when it answers
/// [`Chooser::evict`].
pub trait Chooser: Send {
    /// One event. An implementation that batches may report an error of an earlier
    /// event here or at the next [`Chooser::evict`] or [`Chooser::finish`].
    fn event(&mut self, e: &Event) -> Result<(), ChooserError>;
    /// The cache is full and access `index` missed: name the pages to evict into `out`
    /// (cleared by the caller). At least one; every one resident.
    fn evict(&mut self, index: u64, out: &mut Victims) -> Result<(), ChooserError>;
    /// The run is over: handle any deferred events.
    fn finish(&mut self) -> Result<(), ChooserError>;
}

/// Builds the [`Chooser`] of one run.
pub trait ChooserFactory: Send + Sync {
    /// How messages name the policy (`LRU (py:examples.policies.lru:LRU)`).
    fn display(&self) -> String;
    /// Check the `key=value` parameters before any run (unknown keys, for one).
    fn check(&self, params: &[(String, String)]) -> Result<(), String>;
    /// A chooser for a cache of `capacity` pages.
    fn build(
        &self,
        capacity: u32,
        ctx: &PolicyCtx,
        params: &[(String, String)],
    ) -> Result<Box<dyn Chooser>, String>;
}

/// What the registry knows of an external policy: its entry and its factory.
#[derive(Clone)]
pub struct Registered {
    /// Its registry entry (leaked once per registration: a name lives as long as the
    /// process, as a built-in policy's does).
    pub info: &'static PolicyInfo,
    /// Its factory.
    pub factory: Arc<dyn ChooserFactory>,
}

/// Finds an external policy a name gives that nobody registered (the Python
/// extension imports `module` and takes `Class`).
pub type Resolver = dyn Fn(&str) -> Result<Registered, String> + Send + Sync;

fn table() -> &'static Mutex<Vec<Registered>> {
    static TABLE: OnceLock<Mutex<Vec<Registered>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(Vec::new()))
}

static RESOLVER: OnceLock<Box<Resolver>> = OnceLock::new();

/// Install the resolver of names nobody registered (once per process; a second call
/// is ignored).
pub fn set_resolver(r: Box<Resolver>) {
    let _ = RESOLVER.set(r);
}

/// Register `factory` under `name` (`py:module:Class`), replacing an earlier
/// registration of the name (a class redefined in a notebook); returns the entry.
/// The entry's flags are those of a plain demand-paging cache: what the class does
/// with dirty pages or blocks is its own.
pub fn register(name: &str, summary: &str, factory: Arc<dyn ChooserFactory>) -> Registered {
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let info: &'static PolicyInfo = Box::leak(Box::new(PolicyInfo {
        name: leak(name),
        aliases: &[],
        summary: leak(summary),
        citation: "",
        follows: "",
        flash_aware: false,
        offline: false,
        block_aware: false,
        bypasses_reads: false,
        params: &[],
    }));
    let r = Registered { info, factory };
    let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
    t.retain(|x| x.info.name != name);
    t.push(r.clone());
    r
}

/// Whether `name` is an external policy's name (`py:...`).
pub fn is_external(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The external policy registered as `name`, if any.
pub fn lookup_registered(name: &str) -> Option<Registered> {
    table()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|r| r.info.name == name)
        .cloned()
}

/// The external policy `name`: registered, else resolved (and registered), else an
/// error saying why.
pub fn lookup(name: &str) -> Result<Registered, String> {
    if let Some(r) = lookup_registered(name) {
        return Ok(r);
    }
    match RESOLVER.get() {
        Some(resolve) => resolve(name),
        None => Err(format!(
            "`{name}` is a Python policy, which this program cannot load: run it from Python \
             (`python -m wafer run FILE`, or wafer.simulate / wafer.run_experiment)"
        )),
    }
}

/// Split `py:module:Class[:k=v,...]` into the name and the parameter text.
pub fn split_spec(text: &str) -> Result<(&str, Option<&str>), String> {
    let rest = text.strip_prefix(PREFIX).unwrap_or(text);
    let mut parts = rest.splitn(3, ':');
    let module = parts.next().unwrap_or("").trim();
    let class = parts.next().unwrap_or("").trim();
    if module.is_empty() || class.is_empty() {
        return Err(format!(
            "`{text}`: a Python policy is named `py:module:Class` (a module importable \
             here, or a .py file), then `:key=value,...` for its parameters"
        ));
    }
    let name_len = PREFIX.len() + rest.find(':').unwrap_or(0) + 1 + class.len();
    Ok((&text[..name_len], parts.next()))
}

/// Parameters of [`External`]: its factory and the `key=value` pairs for it.
#[derive(Clone, Default)]
pub struct ExternalParams {
    /// The factory (always set when the registry builds the parameters).
    pub factory: Option<Arc<dyn ChooserFactory>>,
    /// `key=value` pairs, in the order given.
    pub pairs: Vec<(String, String)>,
}

impl std::fmt::Debug for ExternalParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalParams")
            .field("policy", &self.factory.as_ref().map(|x| x.display()))
            .field("pairs", &self.pairs)
            .finish()
    }
}

impl PartialEq for ExternalParams {
    fn eq(&self, other: &Self) -> bool {
        let same = match (&self.factory, &other.factory) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same && self.pairs == other.pairs
    }
}

impl ParamSet for ExternalParams {
    /// The class's own keyword arguments; the factory checks them
    /// ([`ChooserFactory::check`]).
    const SPECS: &'static [ParamSpec] = &[];

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        self.pairs.push((key.to_string(), value.to_string()));
        Ok(())
    }
}

const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;

/// A policy whose victims a [`Chooser`] picks; residency, dirty state and write-backs
/// are kept here, as the engine's semantics say (`docs/cache.md`).
pub struct External {
    chooser: Box<dyn Chooser>,
    /// How errors name the policy.
    display: String,
    cap: u32,
    len: u32,
    ppb: u32,
    /// Per dense page: absent, clean or dirty.
    state: Vec<u8>,
    /// Per dense page: its page number (set when it becomes resident; a trim names
    /// the page to the chooser by it).
    keys: Vec<u64>,
    /// Resident pages by page number (the chooser names victims by number).
    resident: HashMap<u64, u32>,
    /// Index of the access after the last one seen (a trim's index).
    next_index: u64,
    victims: Victims,
    error: Option<String>,
}

impl External {
    fn fail(&mut self, e: ChooserError) {
        if self.error.is_none() {
            self.error = Some(format!(
                "policy {} failed at access {}: {}",
                self.display, e.index, e.msg
            ));
        }
    }

    fn tell(&mut self, e: Event) {
        if let Err(err) = self.chooser.event(&e) {
            self.fail(err);
        }
    }

    /// Evict what the chooser names; false (with the error kept) if it named wrongly.
    fn evict<S: IoSink>(&mut self, index: u64, io: &mut S) -> bool {
        self.victims.pages.clear();
        self.victims.group = false;
        if let Err(e) = self.chooser.evict(index, &mut self.victims) {
            self.fail(e);
            return false;
        }
        if self.victims.pages.is_empty() {
            self.fail(ChooserError {
                index,
                msg: format!(
                    "evict() named no page while the cache is full ({} pages)",
                    self.cap
                ),
            });
            return false;
        }
        let group = self.victims.group;
        if group {
            io.begin_group();
        }
        let mut ok = true;
        for i in 0..self.victims.pages.len() {
            let key = self.victims.pages[i];
            let Some(page) = self.resident.remove(&key) else {
                self.fail(ChooserError {
                    index,
                    msg: format!("evict() named page {key}, which is not resident"),
                });
                ok = false;
                break;
            };
            let st = std::mem::replace(&mut self.state[page as usize], ABSENT);
            self.len -= 1;
            if st == DIRTY {
                io.write_back_keyed(page, key);
            } else {
                io.drop_clean(page);
            }
        }
        if group {
            io.end_group();
        }
        ok
    }
}

impl Policy for External {
    type Params = ExternalParams;
    const NAME: &'static str = "py";
    const SUMMARY: &'static str = "a policy whose victims a user's class (Python) chooses";
    const CITATION: &'static str = "the user's own";
    const FALLIBLE: bool = true;

    fn new(capacity: u32, params: &ExternalParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let factory = params.factory.as_ref().ok_or_else(|| ParamError {
            policy: Self::NAME.into(),
            msg: "no policy class given".into(),
        })?;
        let chooser = factory
            .build(capacity, ctx, &params.pairs)
            .map_err(|msg| ParamError {
                policy: factory.display(),
                msg,
            })?;
        Ok(External {
            chooser,
            display: factory.display(),
            cap: capacity,
            len: 0,
            ppb: ctx.pages_per_block.get(),
            state: Vec::new(),
            keys: Vec::new(),
            next_index: 0,
            resident: HashMap::with_capacity(capacity.min(1 << 20) as usize),
            victims: Victims::default(),
            error: None,
        })
    }

    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let write = a.op == Op::Write;
        let e = Event {
            kind: EventKind::Hit,
            page: a.key,
            block: block_key(a.key, self.ppb),
            write,
            index: a.index,
        };
        self.next_index = a.index + 1;
        let st = &mut self.state[a.page as usize];
        if *st != ABSENT {
            if write {
                *st = DIRTY;
            }
            self.tell(e);
            return true;
        }
        if self.error.is_some() {
            return false;
        }
        if self.len >= self.cap && !self.evict(a.index, io) {
            return false;
        }
        self.state[a.page as usize] = if write { DIRTY } else { CLEAN };
        self.keys[a.page as usize] = a.key;
        self.resident.insert(a.key, a.page);
        self.len += 1;
        self.tell(Event {
            kind: EventKind::Insert,
            ..e
        });
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, ABSENT);
            self.keys.resize(pages as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.resident
                .values()
                .filter(|&&p| self.state[p as usize] == DIRTY),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(st) = self.state.get_mut(page as usize) else {
            return false;
        };
        if *st == ABSENT {
            return false;
        }
        *st = ABSENT;
        let key = self.keys[page as usize];
        self.resident.remove(&key);
        self.len -= 1;
        self.tell(Event {
            kind: EventKind::Remove,
            page: key,
            block: block_key(key, self.ppb),
            write: false,
            index: self.next_index,
        });
        true
    }

    fn error(&mut self, end: bool) -> Option<String> {
        if end && self.error.is_none() {
            if let Err(e) = self.chooser.finish() {
                self.fail(e);
            }
        }
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::after::VecSink;
    use crate::engine::{Input, SimConfig};
    use crate::registry::{run_policy, PolicySpec};
    use crate::testutil::VecReader;
    use crate::{PreparedTrace, SimError};
    use std::collections::BTreeMap;
    use wafer_trace::Request;

    /// LRU as a chooser: recency stamps, the oldest leaves.
    #[derive(Default)]
    struct LruChooser {
        stamp: u64,
        by_page: HashMap<u64, u64>,
        by_stamp: BTreeMap<u64, u64>,
    }

    impl Chooser for LruChooser {
        fn event(&mut self, e: &Event) -> Result<(), ChooserError> {
            if let Some(s) = self.by_page.remove(&e.page) {
                self.by_stamp.remove(&s);
            }
            if e.kind != EventKind::Remove {
                self.stamp += 1;
                self.by_page.insert(e.page, self.stamp);
                self.by_stamp.insert(self.stamp, e.page);
            }
            Ok(())
        }
        fn evict(&mut self, _: u64, out: &mut Victims) -> Result<(), ChooserError> {
            let (s, p) = self.by_stamp.pop_first().expect("full");
            self.by_page.remove(&p);
            let _ = s;
            out.pages.push(p);
            Ok(())
        }
        fn finish(&mut self) -> Result<(), ChooserError> {
            Ok(())
        }
    }

    /// How a test chooser misbehaves.
    #[derive(Clone, Copy)]
    enum Wrong {
        None,
        Stranger,
        Nothing,
        Raises,
    }

    struct Factory(Wrong);

    struct WrongChooser(Wrong, LruChooser);

    impl Chooser for WrongChooser {
        fn event(&mut self, e: &Event) -> Result<(), ChooserError> {
            self.1.event(e)
        }
        fn evict(&mut self, index: u64, out: &mut Victims) -> Result<(), ChooserError> {
            match self.0 {
                Wrong::None => self.1.evict(index, out),
                Wrong::Stranger => {
                    out.pages.push(1 << 40);
                    Ok(())
                }
                Wrong::Nothing => Ok(()),
                Wrong::Raises => Err(ChooserError {
                    index,
                    msg: "ValueError: no".into(),
                }),
            }
        }
        fn finish(&mut self) -> Result<(), ChooserError> {
            Ok(())
        }
    }

    impl ChooserFactory for Factory {
        fn display(&self) -> String {
            "Lru (test)".into()
        }
        fn check(&self, params: &[(String, String)]) -> Result<(), String> {
            match params.first() {
                Some((k, _)) => Err(format!("unknown parameter `{k}`")),
                None => Ok(()),
            }
        }
        fn build(
            &self,
            _: u32,
            _: &PolicyCtx,
            _: &[(String, String)],
        ) -> Result<Box<dyn Chooser>, String> {
            Ok(Box::new(WrongChooser(self.0, LruChooser::default())))
        }
    }

    fn trace() -> Vec<Request> {
        let mut x = 99u64;
        (0..20_000u64)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                Request {
                    time_ns: i,
                    offset: ((x >> 33) % 2500) * 4096,
                    len: 4096 * (1 + ((x >> 40) % 3) as u32),
                    dev: (x >> 50) as u32 % 2,
                    op: match (x >> 20) % 10 {
                        0..=5 => Op::Read,
                        6..=8 => Op::Write,
                        _ => Op::Trim,
                    },
                }
            })
            .collect()
    }

    fn config() -> SimConfig {
        SimConfig {
            capacity_pages: 300,
            pages_per_block: std::num::NonZeroU32::new(64).unwrap(),
            warmup: 100,
            flush_at_end: true,
            write_miss_fetch: true,
            ..SimConfig::default()
        }
    }

    /// An LRU chooser behind [`External`] equals the built-in LRU, counter by counter
    /// and in the after-cache stream, prepared and streamed, trims included.
    #[test]
    fn an_lru_chooser_equals_the_built_in_lru() {
        register("py:t1:Lru", "LRU", Arc::new(Factory(Wrong::None)));
        let reqs = trace();
        let c = config();
        let t = PreparedTrace::from_requests(c.granularity, &reqs).unwrap();
        let run = |spec: &str, prepared: bool| {
            let spec = PolicySpec::parse(spec).unwrap();
            let mut sink = VecSink::default();
            let mut r = VecReader::new(reqs.clone(), 7);
            let input = if prepared {
                Input::Prepared(&t)
            } else {
                Input::Stream(&mut r)
            };
            let m = run_policy(&spec, input, &c, &mut sink, &mut |_| {}).unwrap();
            (m, sink.ops)
        };
        for prepared in [true, false] {
            let (m1, ops1) = run("lru", prepared);
            let (m2, ops2) = run("py:t1:Lru", prepared);
            assert!(m1.evictions > 1000 && m1.trimmed_resident > 0, "{m1:?}");
            assert_eq!(m1, m2);
            assert_eq!(ops1, ops2);
        }
    }

    #[test]
    fn wrong_answers_stop_the_run_naming_the_policy_and_the_access() {
        let reqs = trace();
        let c = config();
        let t = PreparedTrace::from_requests(c.granularity, &reqs).unwrap();
        for (i, (wrong, what)) in [
            (Wrong::Stranger, "which is not resident"),
            (
                Wrong::Nothing,
                "named no page while the cache is full (300 pages)",
            ),
            (Wrong::Raises, "ValueError: no"),
        ]
        .into_iter()
        .enumerate()
        {
            let name = format!("py:t2:Wrong{i}");
            register(&name, "wrong", Arc::new(Factory(wrong)));
            let spec = PolicySpec::parse(&name).unwrap();
            let e = run_policy(
                &spec,
                Input::Prepared(&t),
                &c,
                &mut VecSink::default(),
                &mut |_| {},
            )
            .unwrap_err();
            assert!(matches!(e, SimError::Policy(_)), "{e:?}");
            let e = e.to_string();
            assert!(e.starts_with("policy Lru (test) failed at access "), "{e}");
            assert!(e.ends_with(what), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn names_parameters_and_refusals() {
        register("py:t3:Lru", "LRU", Arc::new(Factory(Wrong::None)));
        let e = PolicySpec::parse("py:t3:Lru:x=1").unwrap_err().to_string();
        assert_eq!(e, "Lru (test): unknown parameter `x`");
        assert_eq!(
            PolicySpec::parse(" py:t3:Lru ").unwrap().label(),
            "py:t3:Lru"
        );
        let e = PolicySpec::parse("py:nowhere:Nope")
            .unwrap_err()
            .to_string();
        assert!(e.contains("python -m wafer run"), "{e}");
        let e = PolicySpec::parse("py:Nope").unwrap_err().to_string();
        assert!(e.contains("`py:module:Class`"), "{e}");
        assert_eq!(
            split_spec("py:a.b:C:k=1,j=2").unwrap(),
            ("py:a.b:C", Some("k=1,j=2"))
        );
    }
}
