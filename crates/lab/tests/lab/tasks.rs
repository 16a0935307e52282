//! Cells computed from their tasks alone ([`CellTask`]: the spec and where its trace
//! is), as a Dask worker computes its share: a task survives JSON with its cell's id,
//! and computes what the plan's own runner computes, bit for bit. The aged devices a
//! study builds once are shared by what the specs say of them, whatever plan the cells
//! came from.

use std::path::Path;
use std::sync::Arc;

use wafer_lab::{
    run_task, CellResult, CellTask, Experiment, GridStudy, Plan, Quiet, RunOptions, Study,
    TaskStudy,
};

/// A trace the repository carries (`traces/README.md`).
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/fileserver.wtr");

fn plan(dir: &Path, text: &str) -> Plan {
    let p = dir.join("exp.toml");
    std::fs::write(&p, text).unwrap();
    Experiment::load(&p).unwrap()
}

/// A grid with a file and a generated trace, a cache-only and a device column, aging
/// with `seed`, two replicates and both views of a device cell.
fn grid(seed: u64) -> String {
    format!(
        r#"name = "tasks"
traces = [
  {{ path = "{TRACE}" }},
  {{ gen = {{ kind = "zipf", requests = 20000, footprint = "8MiB", write_ratio = 0.3, seed = 3 }}, name = "z" }},
]
policies = ["lru", "ts-clock:ppb=64", "lb-clock"]
cache_sizes = ["1MiB", "5%"]
devices = ["none", "microsd-16g"]
measure = ["as-captured", "steady"]
replicates = 2
address_map = "wrap"
[aging]
volume = "16MiB"
seed = {seed}
"#
    )
}

/// The results of `study`, without their wall-clock time.
fn results<S: Study<Output = CellResult> + Send + 'static>(study: S) -> Vec<CellResult> {
    let out = wafer_lab::study::run(&Arc::new(study), &RunOptions::default(), &mut Quiet).unwrap();
    assert!(out.failed.is_empty(), "{:?}", out.failed);
    out.results.into_iter().map(untimed).collect()
}

fn untimed(mut r: CellResult) -> CellResult {
    r.elapsed_s = 0.0;
    r
}

/// The ids of a plan's cells as an earlier wafer recorded them (at version 0.3.0,
/// set on every cell here): stored results stay found.
#[test]
fn a_plans_cells_keep_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"name = "ids"
traces = [{{ path = "{TRACE}" }}]
policies = ["lru", "clock:insert_ref=0", "ts-clock:ppb=64"]
cache_sizes = ["1MiB", "5%"]
devices = ["none", "microsd-16g"]
measure = ["as-captured", "steady"]
replicates = 2
warmup = 100
[aging]
volume = "64MiB"
seed = 7
"#
    );
    let plan = plan(dir.path(), &text);
    let ids: String = plan
        .tasks()
        .into_iter()
        .map(|t| {
            let spec = wafer_lab::RunSpec {
                version: "0.3.0".into(),
                ..t.spec
            };
            spec.id()
        })
        .collect();
    assert_eq!(ids.len(), 30 * 16);
    assert_eq!(
        format!("{:016x}", xxhash_rust::xxh3::xxh3_64(ids.as_bytes())),
        "e2b2dcefea23469f"
    );
}

#[test]
fn tasks_read_back_from_json_compute_what_the_grid_computes() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path(), &grid(7));
    let tasks = plan.tasks();
    let json: Vec<String> = tasks
        .iter()
        .map(|t| serde_json::to_string(t).unwrap())
        .collect();
    let back: Vec<CellTask> = json
        .iter()
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    // What arrives is what was sent (a file's stamp travels as its size and time).
    for ((t, b), j) in tasks.iter().zip(&back).zip(&json) {
        assert_eq!(b.spec, t.spec);
        assert_eq!(&serde_json::to_string(b).unwrap(), j);
    }
    let ids: Vec<String> = plan.cells().iter().map(|c| c.id()).collect();
    assert_eq!(back.iter().map(CellTask::id).collect::<Vec<_>>(), ids);
    let want = results(GridStudy::new(plan, None));
    assert_eq!(results(TaskStudy::new(back, None)), want);
    // One cell on its own, from its task: a steady device cell of the generated trace.
    let k = tasks
        .iter()
        .position(|t| t.spec.trace == "z" && t.spec.measure == wafer_lab::Measure::Steady)
        .unwrap();
    assert_eq!(untimed(run_task(&tasks[k]).unwrap()), want[k]);
}

#[test]
fn aged_devices_are_shared_by_what_the_specs_say() {
    // Two grids that differ only in the aging seed, their device cells in one study:
    // each cell runs on the device its own spec describes.
    let dir = tempfile::tempdir().unwrap();
    let on_device = |seed| {
        let p = plan(dir.path(), &grid(seed).replace("\"none\", ", ""));
        let mut tasks = p.tasks();
        tasks.retain(|t| t.spec.trace == "z");
        let want = results(TaskStudy::new(tasks.clone(), None));
        (tasks, want)
    };
    let (a, want_a) = on_device(7);
    let (b, want_b) = on_device(1000);
    let erases = |r: &[CellResult]| -> Vec<u64> {
        r.iter().map(|c| c.ftl.as_ref().unwrap().erases).collect()
    };
    assert_ne!(
        erases(&want_a),
        erases(&want_b),
        "the seed shapes the device"
    );
    let mixed: Vec<CellTask> = a
        .iter()
        .zip(&b)
        .flat_map(|(x, y)| [x.clone(), y.clone()])
        .collect();
    let got = results(TaskStudy::new(mixed, None));
    let (got_a, got_b): (Vec<_>, Vec<_>) =
        got.chunks(2).map(|p| (p[0].clone(), p[1].clone())).unzip();
    assert_eq!(got_a, want_a);
    assert_eq!(got_b, want_b);
}

/// A worker checks the trace file against the stamp its task carries (its size and
/// time, the device and inode being the driver's): a file written over since the
/// driver checksummed it stores no cell.
#[test]
fn a_trace_changed_since_planning_stores_no_cell() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.wtr");
    std::fs::copy(TRACE, &trace).unwrap();
    let text = format!(
        "name = \"c\"\ntraces = [{{ path = \"{}\", name = \"t\" }}]\npolicies = [\"lru\", \"fifo\"]\ncache_sizes = [\"1MiB\"]\n",
        trace.display()
    );
    let tasks: Vec<CellTask> = plan(dir.path(), &text)
        .tasks()
        .iter()
        .map(|t| serde_json::from_str(&serde_json::to_string(t).unwrap()).unwrap())
        .collect();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/sqlite-wal.wtr"),
        &trace,
    )
    .unwrap();
    let out = dir.path().join("out");
    let share = Arc::new(TaskStudy::new(tasks, Some(&out)));
    let e = wafer_lab::study::run(&share, &RunOptions::stored(&out, 1), &mut Quiet)
        .expect_err("a changed trace is an error")
        .to_string();
    assert!(e.contains("the trace file changed during the run"), "{e}");
    let stored = std::fs::read_dir(out.join("cells"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(stored, 0);
}
