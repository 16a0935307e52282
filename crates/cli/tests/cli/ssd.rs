//! `wafer ssd` end to end.

use predicates::prelude::*;

use crate::common::wafer;

fn json(args: &[&str]) -> serde_json::Value {
    let out = wafer().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn micro_benchmark_json_reports_response_times_and_flushes() {
    let wb = json(&[
        "ssd",
        "--gen",
        "random-write",
        "--requests",
        "2000",
        "--cache-size",
        "8MiB",
        "--ways",
        "1",
        "--apu",
        "off",
    ]);
    let apu = json(&[
        "ssd",
        "--gen",
        "random-write",
        "--requests",
        "2000",
        "--cache-size",
        "8MiB",
        "--ways",
        "1",
        "--apu",
        "lru",
    ]);
    let r = &wb["report"];
    assert_eq!(r["requests"], 2000);
    assert_eq!(r["write_requests"], 2000);
    assert_eq!(r["cache"]["apu_flushes"], 0);
    assert!(r["cache"]["on_demand_flushes"].as_u64().unwrap() > 0);
    assert!(apu["report"]["cache"]["apu_flushes"].as_u64().unwrap() > 0);
    let mean = |v: &serde_json::Value| v["report"]["response"]["all"]["mean_ns"].as_f64().unwrap();
    assert!(mean(&apu) < mean(&wb));
    assert!(r["series"].as_array().unwrap().len() > 10);
    assert_eq!(
        wb["device"]["geometry"]["logical_pages"],
        (16u64 << 30) / 4096
    );
}

#[test]
fn real_trace_with_wrap_and_text_output() {
    let Some(t) = wafer_testdata::trace("disksim/tpcc-small.trace") else {
        return;
    };
    wafer()
        .args(["ssd", "-t"])
        .arg(&t)
        .args([
            "--wrap",
            "--cache-size",
            "4MiB",
            "--ways",
            "full",
            "--apu",
            "lfu",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("requests      6999"))
        .stdout(predicate::str::contains("flushes"));
}

/// The queue depth and the flash times reach the device: MQSim's flash (8 channels x
/// 4 ways) with its channel time serves tpcc faster with 512 requests in flight than
/// one at a time.
#[test]
fn queue_depth_and_channel_time_reach_the_device() {
    let Some(t) = wafer_testdata::trace("disksim/tpcc-small.trace") else {
        return;
    };
    let dev = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/devices/mqsim-ssdconfig.toml"
    );
    let run = |depth: &str| {
        json(&[
            "ssd",
            "-t",
            t.to_str().unwrap(),
            "-d",
            dev,
            "--capacity",
            "4GiB",
            "--wrap",
            "--no-cache",
            "--t-bus",
            "2496ns",
            "--t-channel",
            "24576ns",
            "--queue-depth",
            depth,
        ])
    };
    let (one, deep) = (run("1"), run("512"));
    assert_eq!(deep["config"]["queue_depth"], 512);
    assert_eq!(deep["config"]["t_channel_ns"], 24576);
    assert_eq!(deep["device"]["geometry"]["channels"], 8);
    assert_eq!(deep["device"]["geometry"]["ways"], 4);
    let mean = |v: &serde_json::Value| v["report"]["response"]["all"]["mean_ns"].as_f64().unwrap();
    assert!(
        mean(&deep) < mean(&one),
        "{} vs {}",
        mean(&deep),
        mean(&one)
    );
    assert!(deep["report"]["timing"]["max_in_system"].as_u64().unwrap() > 1);
}

#[test]
fn untimed_requests_need_an_arrival_process() {
    let base = [
        "ssd",
        "--gen",
        "random-write",
        "--gen-arrival",
        "none",
        "--requests",
        "500",
    ];
    wafer()
        .args(base)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "has no timestamp; choose an arrival process",
        ));
    wafer()
        .args(base)
        .args(["--arrival", "closed", "--queue-depth", "4"])
        .assert()
        .success()
        .stdout(predicate::str::contains("requests      500"))
        .stdout(predicate::str::contains("(max 4)"));
}

#[test]
fn usage_errors_exit_2() {
    for bad in [
        &["ssd", "--gen", "nope"][..],
        &["ssd", "--gen", "thrash", "--ways", "0"],
        &["ssd", "--gen", "thrash", "--apu", "mru"],
        &["ssd", "--gen", "thrash", "--idle-threshold", "2"],
        &["ssd", "--gen", "thrash", "--t-channel", "25"],
        &["ssd", "--gen", "thrash", "--queue-depth", "0"],
        &[
            "ssd",
            "--gen",
            "thrash",
            "--cache-size",
            "12KiB",
            "--ways",
            "4",
        ],
        &["ssd"],
    ] {
        wafer()
            .args(bad)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("wafer: ").or(predicate::str::contains("error:")));
    }
}
