//! fio's normal output: the same lines as real fio 3.33 prints (tests/fixtures/*.txt).

mod common;

use std::time::{Duration, Instant};

use report::{to_normal_text, Dir, JobRecorder};

const FIO_TEXT: &str = include_str!("fixtures/fio-3.33-randrw-fsync.txt");

/// A line up to its first digit (padding dropped), with the time unit neutralised:
/// "    clat (usec): min=26, …" → "    clat (unit): min=".
fn shape(line: &str) -> String {
    let head: String = line.chars().take_while(|c| !c.is_ascii_digit()).collect();
    head.trim_end().replace("(nsec)", "(unit)").replace("(usec)", "(unit)").replace("(msec)", "(unit)")
}

#[test]
fn normal_text_contains_the_lines_fio_prints() {
    let text = to_normal_text(&common::fixture_like_run());
    let expected_starts = [
        "mixed: (groupid=0, jobs=1): err= 0: pid=",
        "  Description  : [fixture]",
        "  read: IOPS=1000, BW=4000KiB/s (4096kB/s)(4000KiB/1000msec)",
        "  write: IOPS=1000, BW=4000KiB/s (4096kB/s)(4000KiB/1000msec); 0 zone resets",
        "    slat (nsec): min=",
        "    clat (nsec): min=",
        "     lat (nsec): min=",
        "    clat percentiles (nsec):",
        "     |  1.00th=[",
        "     | 99.99th=[",
        "   bw (  KiB/s): min= 4000, max= 4000, per=100.00%, avg=4000.00, stdev= 0.00, samples=2",
        "   iops        : min= 1000, max= 1000, avg=1000.00, stdev= 0.00, samples=2",
        "  lat (usec)   : ",
        "  lat (msec)   : 10=0.20%",
        "  fsync/fdatasync/sync_file_range:",
        "    sync (usec): min=",
        "    sync percentiles (usec):",
        "  cpu          : usr=1.70%, sys=38.90%, ctx=11716, majf=0, minf=14",
        "  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%",
        "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "     issued rwts: total=1000,1000,0,63 short=0,0,0,0 dropped=0,0,0,0",
        "     latency   : target=0, window=0, percentile=100.00%, depth=1",
        "Run status group 0 (all jobs):",
        "   READ: bw=4000KiB/s (4096kB/s), 4000KiB/s-4000KiB/s (4096kB/s-4096kB/s), io=4000KiB (4096kB), run=1000-1000msec",
        "  WRITE: bw=4000KiB/s (4096kB/s), 4000KiB/s-4000KiB/s (4096kB/s-4096kB/s), io=4000KiB (4096kB), run=1000-1000msec",
        "nfsbench notes:",
        "  target: 127.0.0.1:/export",
    ];
    for want in expected_starts {
        assert!(text.lines().any(|l| l.starts_with(want)), "no line starting {want:?} in:\n{text}");
    }
    assert!(text.starts_with("\nmixed: (groupid=0"));
}

#[test]
fn every_line_we_print_has_the_shape_of_a_line_real_fio_printed() {
    let fio_shapes: Vec<String> = FIO_TEXT.lines().map(shape).collect();
    let text = to_normal_text(&common::fixture_like_run());
    let ours: Vec<&str> = text.lines().collect();
    let notes_at = ours.iter().position(|l| *l == "nfsbench notes:").unwrap_or(ours.len());
    // Skip the job header (its pid and date differ), our host CPU line and our own notes trailer.
    let ours_only = |l: &&&str| l.starts_with("mixed: (groupid=") || l.starts_with("  host cpu     : ");
    for line in ours[..notes_at].iter().filter(|l| !l.is_empty() && !ours_only(l)) {
        let s = shape(line);
        assert!(fio_shapes.contains(&s), "fio never prints a line shaped {s:?} (ours: {line:?})");
    }
}

#[test]
fn a_global_description_is_shown_for_a_job_without_its_own() {
    let mut run = common::fixture_like_run();
    run.jobs[0].description = None;
    assert!(to_normal_text(&run).contains("  Description  : [fixture]\n"));
    run.global_options.retain(|(k, _)| k != "description");
    assert!(!to_normal_text(&run).contains("Description"));
}

#[test]
fn jobs_without_io_print_nothing_but_their_group() {
    let mut run = common::fixture_like_run();
    run.jobs[0].recorder = JobRecorder::new(Instant::now());
    let text = to_normal_text(&run);
    assert!(!text.contains("mixed:"));
    assert!(text.contains("Run status group 0 (all jobs):"));
    assert!(!text.contains("READ:"));
}

#[test]
fn an_error_is_shown_in_the_job_header_with_its_text() {
    let mut run = common::fixture_like_run();
    run.jobs[0].recorder.record_error(5);
    let text = to_normal_text(&run);
    assert!(text.contains("err= 5 (error=Input/output error): pid="), "{text}");
}

#[test]
fn large_bandwidth_uses_mib_in_the_bw_line_and_gib_in_the_summary() {
    let t0 = Instant::now();
    let mut r = JobRecorder::new(t0);
    for i in 0..4000u64 {
        r.record_io(Dir::Read, 1 << 20, 0, 900_000, t0 + Duration::from_micros(i * 250));
    }
    let mut run = common::fixture_like_run();
    run.jobs[0].recorder = r;
    let text = to_normal_text(&run);
    // 4000 MiB in 1 s.
    assert!(text.contains("  read: IOPS=4000, BW=4000MiB/s (4194MB/s)(4000MiB/1000msec)"), "{text}");
    assert!(text.contains("   bw (  MiB/s): min= 4000, max= 4000, per=100.00%, avg=4000.00"), "{text}");
    assert!(text.contains("   READ: bw=4000MiB/s (4194MB/s), 4000MiB/s-4000MiB/s"), "{text}");
}
