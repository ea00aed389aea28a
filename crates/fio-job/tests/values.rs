//! Option values: sizes, block-size forms, times, lists, choices.

use fio_job::{BlockSize, JobSpec, Parser, Rw, Verify};
use std::time::Duration;

fn job(body: &str) -> JobSpec {
    let text = format!("[job]\nsize=1g\n{body}\n");
    let mut set =
        Parser::new().env(|_| None).parse(Some((&text, "v.fio")), &[]).unwrap_or_else(|e| panic!("{body}: {e}"));
    set.jobs.remove(0)
}

#[test]
fn size_suffixes_follow_fios_default_kb_base() {
    assert_eq!(job("size=4096").size, Some(4096));
    assert_eq!(job("size=4k").size, Some(4096));
    assert_eq!(job("size=4K").size, Some(4096));
    assert_eq!(job("size=4KB").size, Some(4096));
    assert_eq!(job("size=4kB").size, Some(4096));
    assert_eq!(job("size=8KiB").size, Some(8000));
    assert_eq!(job("size=3m").size, Some(3 << 20));
    assert_eq!(job("size=2MiB").size, Some(2_000_000));
    assert_eq!(job("size=2g").size, Some(2 << 30));
    assert_eq!(job("size=1t").size, Some(1 << 40));
    assert_eq!(job("size=1p").size, Some(1 << 50));
    assert_eq!(job("size=0x100000").size, Some(1 << 20));
}

#[test]
fn kb_base_1000_applies_to_the_whole_section_whatever_its_position() {
    let j = job("bs=4k\nkb_base=1000\nsize=1GiB");
    assert_eq!(j.bs[0].min(), 4000);
    assert_eq!(j.size, Some(1 << 30));
    assert_eq!(j.kb_base, 1000);
}

#[test]
fn block_sizes_take_read_and_write_values() {
    assert_eq!(job("bs=256k").bs, [BlockSize::Fixed(256 << 10), BlockSize::Fixed(256 << 10)]);
    assert_eq!(job("bs=8k,32k").bs, [BlockSize::Fixed(8192), BlockSize::Fixed(32768)]);
    assert_eq!(job("bs=8k,32k,").bs, [BlockSize::Fixed(8192), BlockSize::Fixed(32768)]);
    assert_eq!(job("bs=,8k").bs, [BlockSize::Fixed(4096), BlockSize::Fixed(8192)]);
    assert_eq!(job("blocksize=8k,").bs, [BlockSize::Fixed(8192), BlockSize::Fixed(4096)]);
    assert_eq!(job("bs=4k:16k").bs, [BlockSize::Fixed(4096), BlockSize::Fixed(16384)]);
}

#[test]
fn bsrange_gives_ranges_and_swaps_reversed_bounds() {
    assert_eq!(job("bsrange=1k-4k").bs[1], BlockSize::Range { min: 1024, max: 4096 });
    let j = job("blocksize_range=1k-4k,8k:2k");
    assert_eq!(j.bs, [BlockSize::Range { min: 1024, max: 4096 }, BlockSize::Range { min: 2048, max: 8192 }]);
    assert_eq!(job("bsrange=4k-4k").bs[0], BlockSize::Fixed(4096));
}

#[test]
fn bsrange_in_global_wins_over_a_jobs_bs_as_in_fio() {
    let text = "[global]\nsize=1m\nbsrange=1k-4k\n[job]\nbs=8k\n";
    let set = fio_job::parse(Some((text, "g.fio")), &[]).unwrap();
    assert_eq!(set.jobs[0].bs[0], BlockSize::Range { min: 1024, max: 4096 });
}

#[test]
fn bssplit_fills_blank_percentages_evenly_and_sorts_by_percentage() {
    assert_eq!(job("bssplit=4k/10:64k/50:32k/40").bs[0], BlockSize::Split(vec![(4096, 10), (32768, 40), (65536, 50)]));
    assert_eq!(job("bssplit=4k/50:1k/:32k/").bs[1], BlockSize::Split(vec![(1024, 25), (32768, 25), (4096, 50)]));
    assert_eq!(job("bssplit=4k:8k").bs[0], BlockSize::Split(vec![(4096, 50), (8192, 50)]));
}

#[test]
fn bssplit_takes_separate_read_and_write_splits() {
    let j = job("bssplit=2k/50:4k/50,4k/90:8k/10");
    assert_eq!(j.bs[0], BlockSize::Split(vec![(2048, 50), (4096, 50)]));
    assert_eq!(j.bs[1], BlockSize::Split(vec![(8192, 10), (4096, 90)]));
    let j = job("bssplit=,4k/90:8k/10");
    assert_eq!(j.bs[0], BlockSize::Fixed(4096));
    assert_eq!((j.bs[1].min(), j.bs[1].max()), (4096, 8192));
}

#[test]
fn bssplit_percentages_under_100_are_kept_and_one_size_is_fixed() {
    assert_eq!(job("bssplit=4k/30:8k/30").bs[0], BlockSize::Split(vec![(4096, 30), (8192, 30)]));
    assert_eq!(job("bssplit=16k/100").bs[0], BlockSize::Fixed(16384));
}

#[test]
fn rw_names_and_aliases_map_to_patterns() {
    for (v, rw) in [
        ("read", Rw::Read),
        ("write", Rw::Write),
        ("randread", Rw::RandRead),
        ("randwrite", Rw::RandWrite),
        ("rw", Rw::ReadWrite),
        ("readwrite", Rw::ReadWrite),
        ("randrw", Rw::RandRw),
    ] {
        assert_eq!(job(&format!("rw={v}")).rw, rw);
        assert_eq!(job(&format!("readwrite={v}")).rw, rw);
    }
}

#[test]
fn rwmixwrite_sets_the_read_share_to_the_rest() {
    assert_eq!(job("rw=randrw\nrwmixwrite=30").rwmixread, 70);
    assert_eq!(job("rwmixwrite=30\nrwmixread=90").rwmixread, 90);
}

#[test]
fn times_default_to_seconds_and_take_units() {
    let j = job("runtime=2m\nramp_time=500ms\nstartdelay=3");
    assert_eq!(j.runtime, Some(Duration::from_secs(120)));
    assert_eq!(j.ramp_time, Duration::from_millis(500));
    assert_eq!((j.startdelay, j.startdelay_max), (Duration::from_secs(3), None));
    assert_eq!(job("timeout=1h").runtime, Some(Duration::from_secs(3600)));
    assert_eq!(job("runtime=250us").runtime, Some(Duration::from_micros(250)));
    assert_eq!(job("runtime=1d").runtime, Some(Duration::from_secs(86_400)));
    assert_eq!(job("runtime=0").runtime, None);
    let j = job("startdelay=5-1");
    assert_eq!((j.startdelay, j.startdelay_max), (Duration::from_secs(1), Some(Duration::from_secs(5))));
}

#[test]
fn time_based_without_runtime_is_dropped_with_a_notice() {
    let set = fio_job::parse(Some(("[j]\nsize=1m\ntime_based\n", "t.fio")), &[]).unwrap();
    assert!(!set.jobs[0].time_based);
    assert_eq!(set.notices, ["job 'j': time_based requires a runtime; ignoring time_based (as fio does)"]);
}

#[test]
fn verify_methods_map_to_the_implemented_checksums() {
    assert_eq!(job("verify=crc32c").verify, Some(Verify::Crc32c));
    assert_eq!(job("verify=crc32c-intel").verify, Some(Verify::Crc32c));
    assert_eq!(job("verify=md5").verify, Some(Verify::Md5));
    assert_eq!(job("verify=0").verify, None);
    assert_eq!(job("verify=null").verify, None);
    let j = job("rw=read\nverify=md5\nverify_fatal=1\nverify_interval=512\ndo_verify=0");
    assert!(j.verify_fatal && !j.do_verify);
    assert_eq!(j.verify_interval, Some(512));
}

#[test]
fn the_effective_verify_interval_follows_fios_fixups() {
    assert_eq!(job("rw=write\nverify=md5\nbs=4k").effective_verify_interval(), Some(4096));
    assert_eq!(job("rw=write\nverify=md5\nbs=16k\nverify_interval=512").effective_verify_interval(), Some(512));
    assert_eq!(job("rw=write\nverify=md5\nbsrange=4k-12k").effective_verify_interval(), Some(4096));
    assert_eq!(job("rw=write\nverify=md5\nbsrange=8k-12k\nverify_interval=8k").effective_verify_interval(), Some(4096));
    assert_eq!(job("rw=write").effective_verify_interval(), None);
}

#[test]
fn booleans_direct_and_buffered_are_inverses() {
    assert!(job("direct=1").direct);
    assert!(!job("direct=1\nbuffered=1").direct);
    assert!(job("buffered=0").direct);
    let j = job("fsync=32\nfdatasync=8\nend_fsync=1\ncreate_on_open=1\nloops=3");
    assert_eq!((j.fsync, j.fdatasync, j.end_fsync, j.create_on_open, j.loops), (32, 8, true, true, 3));
    assert_eq!(job("loops=0").loops, 1);
}

#[test]
fn randseed_turns_randrepeat_off_as_fio_does() {
    let j = job("randseed=0x1234");
    assert_eq!((j.randseed, j.randrepeat), (Some(0x1234), false));
    assert!(!job("randrepeat=0").randrepeat);
}

#[test]
fn percentile_list_and_percentile_switches_are_kept() {
    let j = job("percentile_list=50:99:99.9:99.99\nlat_percentiles=1\nclat_percentiles=0");
    assert_eq!(j.percentile_list, Some(vec![50.0, 99.0, 99.9, 99.99]));
    assert!(j.lat_percentiles && !j.clat_percentiles);
    let j = job("gtod_reduce=1\nlat_percentiles=1");
    assert!(j.gtod_reduce && !j.lat_percentiles && !j.clat_percentiles);
}

#[test]
fn thread_invalidate_and_ioengine_are_accepted_with_notices() {
    let text = "[j]\nsize=1m\nthread\ninvalidate=1\nioengine=io_uring\n";
    let set = fio_job::parse(Some((text, "n.fio")), &[]).unwrap();
    assert_eq!(
        set.notices,
        [
            "thread: no effect: nfsbench runs every job clone as a task of one process",
            "invalidate: no effect: nfsbench's NFS client keeps no page cache",
            "ioengine=io_uring: I/O goes through nfsbench's NFS client",
        ]
    );
}

#[test]
fn name_inside_a_section_renames_the_job_but_a_global_name_does_not() {
    assert_eq!(job("name=renamed").name, "renamed");
    let set = fio_job::parse(Some(("[global]\nname=g\nsize=1m\n[a]\n", "n.fio")), &[]).unwrap();
    assert_eq!(set.jobs[0].name, "a");
}
