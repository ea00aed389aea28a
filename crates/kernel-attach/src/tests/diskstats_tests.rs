use std::path::Path;

use crate::diskstats::DiskStats;
use crate::error::AttachError;

const PATH: &str = "/sys/block/nvme1n1/stat";

fn parse(text: &str) -> Result<DiskStats, AttachError> {
    DiskStats::parse(text, Path::new(PATH))
}

#[test]
fn the_seventeen_fields_of_linux_5_5_on() {
    let s = parse("  100  2  800  30  50  1  4096  20  3  45  60  7  0  56  1  9  2\n").expect("17 fields");
    assert_eq!(
        s,
        DiskStats {
            read_ios: 100,
            read_merges: 2,
            read_sectors: 800,
            read_ticks_ms: 30,
            write_ios: 50,
            write_merges: 1,
            write_sectors: 4096,
            write_ticks_ms: 20,
            in_flight: 3,
            io_ticks_ms: 45,
            time_in_queue_ms: 60,
            discard_ios: 7,
            discard_merges: 0,
            discard_sectors: 56,
            discard_ticks_ms: 1,
            flush_ios: 9,
            flush_ticks_ms: 2,
        }
    );
    // Sectors are 512 bytes whatever the device's block size.
    assert_eq!((s.read_bytes(), s.write_bytes()), (800 * 512, 4096 * 512));
}

#[test]
fn older_kernels_print_fewer_fields() {
    let eleven = parse("1 2 3 4 5 6 7 8 9 10 11").expect("11 fields");
    assert_eq!((eleven.time_in_queue_ms, eleven.discard_ios, eleven.flush_ios), (11, 0, 0));
    let fifteen = parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15").expect("15 fields");
    assert_eq!((fifteen.discard_ticks_ms, fifteen.flush_ios), (15, 0));
}

#[test]
fn delta_subtracts_counters_and_keeps_in_flight() {
    let earlier = parse("10 0 80 5 4 0 32 2 1 7 9 0 0 0 0 0 0").expect("earlier");
    let now = parse("30 1 240 9 4 0 32 2 5 17 29 0 0 0 0 1 1").expect("now");
    let d = now.delta(&earlier);
    assert_eq!((d.read_ios, d.read_sectors, d.read_bytes(), d.write_ios), (20, 160, 160 * 512, 0));
    assert_eq!((d.in_flight, d.io_ticks_ms, d.time_in_queue_ms, d.flush_ios), (5, 10, 20, 1));
    // A device re-created in between: counters went back, the window is empty, not huge.
    assert_eq!(earlier.delta(&now).read_ios, 0);
}

#[test]
fn a_malformed_stat_file_names_the_path() {
    for bad in
        ["", "1 2 3", "1 2 3 4 5 6 7 8 9 10 11 12", "1 2 3 4 5 6 7 8 9 10 x", "-1 2 3 4 5 6 7 8 9 10 11", "\u{0}\u{1}"]
    {
        let e = parse(bad).expect_err(bad);
        let text = e.to_string();
        assert!(text.starts_with(PATH) && text.contains("expected"), "{bad:?}: {text}");
    }
}

#[test]
fn reading_a_missing_or_empty_file_names_it() {
    let tree = super::Tree::new("diskstats");
    let e = DiskStats::read(&tree.path("block/sdz/stat")).expect_err("missing");
    assert!(e.to_string().contains("block/sdz/stat"), "{e}");
    tree.file("block/sdz/stat", "\n");
    let e = DiskStats::read(&tree.path("block/sdz/stat")).expect_err("empty");
    assert!(e.to_string().contains("block/sdz/stat"), "{e}");
    tree.file("block/sdz/stat", "1 2 3 4 5 6 7 8 9 10 11\n");
    assert_eq!(DiskStats::read(&tree.path("block/sdz/stat")).expect("read").read_ios, 1);
}
