//! The lab captures of testdata/ (Linux 6.1 cifs client, ksmbd, TCP and SMB Direct over Soft-RoCE,
//! with and without multichannel): what each connection negotiated, and what a window of 16 MiB
//! written and read back counted.

use cifs_stats::{
    parse_debug_data, parse_stats, unc_of_target, CommandTimes, Connection, DebugData, ShareStats, SmbDirect, Stats,
    DEBIAN_HZ, SMB2_READ, SMB2_WRITE,
};

const SHARE: &str = "//10.99.0.1/bench";
const TREE: &str = r"\\10.99.0.1\bench";
const MIB16: u64 = 16 * 1024 * 1024;

fn text(name: &str) -> String {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn debug_data(name: &str) -> DebugData {
    parse_debug_data(&text(&format!("{name}.DebugData"))).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn stats(name: &str) -> Stats {
    parse_stats(&text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn connection(name: &str) -> Connection {
    let d = debug_data(name);
    assert!(!d.truncated);
    assert_eq!(d.connections.len(), 1, "{name}");
    d.for_share(SHARE).unwrap_or_else(|| panic!("{name}: no {SHARE}")).clone()
}

/// The SMB Direct parameters ksmbd and the 6.1 client settled on over rxe0 (every capture alike).
fn lab_smbd() -> SmbDirect {
    SmbDirect {
        protocol_version: 0x100,
        transport_status: 2,
        receive_credit_max: 0xff,
        send_credit_target: 0xff,
        max_send_size: 0x554,
        max_fragmented_recv_size: 0x2a756,
        max_fragmented_send_size: 0x2a756,
        max_receive_size: 0x554,
        keep_alive_interval: 0x78,
        max_readwrite_size: 0x200000,
        rdma_readwrite_threshold: 0x1000,
    }
}

#[test]
fn tcp_mount_is_smb311_on_tcp_with_one_channel() {
    let c = connection("tcp");
    assert_eq!(c.hostname, "10.99.0.1");
    assert_eq!(c.dialect.as_deref(), Some("3.1.1"));
    assert_eq!((c.rdma, c.smbd.is_none(), c.channels, c.credits), (false, true, 1, Some(518)));
    assert_eq!(c.shares, [TREE], "IPC$ is left out");
}

#[test]
fn rdma_mount_is_smb_direct_with_its_parameters() {
    let c = connection("rdma");
    assert_eq!(c.dialect.as_deref(), Some("3.1.1"));
    assert!(c.rdma);
    assert_eq!(c.smbd, Some(lab_smbd()));
    assert_eq!((c.channels, c.credits), (1, Some(518)));
}

#[test]
fn multichannel_over_rdma_brings_up_two_channels_and_over_tcp_one() {
    let rdma = connection("rdma-mc");
    assert_eq!((rdma.rdma, rdma.channels, rdma.credits), (true, 2, Some(491)));
    assert_eq!(rdma.smbd.as_ref().map(|s| s.max_readwrite_size), Some(0x200000));
    let tcp = connection("tcp-mc");
    assert_eq!((tcp.rdma, tcp.channels, tcp.dialect.as_deref()), (false, 1, Some("3.1.1")));
}

#[test]
fn share_lookup_takes_either_form_and_ignores_case() {
    let d = debug_data("tcp");
    for unc in ["//10.99.0.1/bench", r"\\10.99.0.1\bench", "//10.99.0.1/BENCH/sub/dir", r"\\10.99.0.1\Bench"] {
        assert!(d.for_share(unc).is_some(), "{unc}");
    }
    assert!(d.for_share("//10.99.0.2/bench").is_none());
    assert!(d.for_share("//10.99.0.1/IPC$").is_none());
    assert!(d.for_share("not a unc").is_none());
    let lo = debug_data("lo");
    assert_eq!(lo.for_share("//127.0.0.1/bench").map(|c| c.hostname.as_str()), Some("127.0.0.1"));
}

#[test]
fn no_mount_means_no_connections() {
    let d = debug_data("none");
    assert_eq!(d, DebugData::default());
}

#[test]
fn stats_before_mounting_have_no_share_and_no_table() {
    for name in ["tcp.Stats.before", "rdma.Stats.before", "rdma-mc.Stats.before"] {
        let s = stats(name);
        assert!(s.shares.is_empty() && s.commands.is_empty() && s.hz.is_none(), "{name}");
    }
}

#[test]
fn window_of_16_mib_written_and_read_back() {
    let unc = unc_of_target(SHARE).unwrap();
    assert_eq!(unc, TREE);
    for run in ["tcp", "rdma", "rdma-mc"] {
        let before = stats(&format!("{run}.Stats.before"));
        let after = stats(&format!("{run}.Stats.after"));
        let zero = ShareStats::default();
        let share = after.share(&unc).unwrap_or_else(|| panic!("{run}: no share"));
        let w = share.delta(before.share(&unc).unwrap_or(&zero));
        assert_eq!((w.unc.as_str(), w.bytes_read, w.bytes_written), (TREE, MIB16, MIB16), "{run}");
        assert_eq!((w.reads, w.reads_failed, w.writes, w.writes_failed), (64, 0, 64, 0), "{run}");
        assert_eq!(w.smbs, 160, "{run}");
        let whole = after.delta(&before);
        assert_eq!(whole.share(SHARE), Some(&w), "{run}");
        assert_eq!(whole.commands[&SMB2_READ].count, 64, "{run}");
        assert_eq!(whole.commands[&SMB2_WRITE].count, 64, "{run}");
    }
}

#[test]
fn other_share_counters_are_kept_by_name() {
    let s = stats("tcp.Stats.after");
    let share = s.share(SHARE).unwrap();
    let o = &share.others;
    assert_eq!((o["Creates"], o["Closes"], o["IOCTLs"], o["IOCTLs failed"]), (10, 10, 2, 1));
    assert_eq!((o["QueryInfos"], o["SetInfos"], o["TreeConnects"], o["OplockBreaks"]), (8, 1, 1, 0));
    assert_eq!((o["Open files"], o["Open files on server"]), (0, 0));
    assert!(!o.contains_key("Reads") && !o.contains_key("Writes"));
    assert_eq!(o.len(), 26, "12 total/failed pairs besides reads and writes, and 2 open-file levels");
}

#[test]
fn read_and_write_round_trips_in_jiffies() {
    let s = stats("tcp.Stats.after");
    assert_eq!(s.hz, Some(DEBIAN_HZ));
    assert_eq!(s.commands.len(), 19);
    let read = s.commands[&SMB2_READ];
    let write = s.commands[&SMB2_WRITE];
    assert_eq!(read, CommandTimes { count: 64, total_jiffies: 177, fastest: 1, slowest: 6 });
    assert_eq!(write, CommandTimes { count: 64, total_jiffies: 260, fastest: 0, slowest: 11 });
    assert!((read.mean_ms(DEBIAN_HZ) - 177.0 * 4.0 / 64.0).abs() < 1e-9);
    let rdma = stats("rdma.Stats.after");
    assert_eq!(rdma.commands[&SMB2_READ], CommandTimes { count: 64, total_jiffies: 289, fastest: 2, slowest: 8 });
    assert_eq!(rdma.commands[&SMB2_WRITE], CommandTimes { count: 64, total_jiffies: 370, fastest: 0, slowest: 17 });
}

#[test]
fn multichannel_tables_are_summed_per_command() {
    // Two tables (one per channel): READ 32 + 32 over 199 + 187 jiffies, fastest min(2, 3), slowest max(12, 14).
    let s = stats("rdma-mc.Stats.after");
    assert_eq!(s.commands[&SMB2_READ], CommandTimes { count: 64, total_jiffies: 386, fastest: 2, slowest: 14 });
    assert_eq!(s.commands[&SMB2_WRITE], CommandTimes { count: 64, total_jiffies: 333, fastest: 2, slowest: 10 });
    // Command 0 (NEGOTIATE) ran once on each channel in 0 jiffies.
    assert_eq!(s.commands[&0], CommandTimes { count: 2, total_jiffies: 0, fastest: 0, slowest: 0 });
    assert_eq!(s.shares.len(), 1);
    let half = stats("rdma-mc-half.Stats");
    assert_eq!(half.commands[&SMB2_READ], CommandTimes { count: 32, total_jiffies: 139, fastest: 2, slowest: 7 });
    assert_eq!((half.share(SHARE).unwrap().reads, half.share(SHARE).unwrap().bytes_read), (32, MIB16 / 2));
}

#[test]
fn command_window_keeps_the_later_extremes() {
    let later = CommandTimes { count: 64, total_jiffies: 260, fastest: 0, slowest: 11 };
    let earlier = CommandTimes { count: 60, total_jiffies: 250, fastest: 1, slowest: 30 };
    assert_eq!(later.delta(&earlier), CommandTimes { count: 4, total_jiffies: 10, fastest: 0, slowest: 11 });
    assert_eq!(earlier.delta(&later).count, 0, "saturating");
    assert_eq!(CommandTimes::default().mean_ms(DEBIAN_HZ), 0.0);
    assert_eq!(later.mean_ms(0), 0.0);
}

#[test]
fn share_window_saturates_and_keeps_open_file_levels() {
    let s = stats("tcp.Stats.after");
    let after = s.share(SHARE).unwrap();
    let mut later = after.clone();
    later.others.insert("Open files".into(), 3);
    let w = later.delta(after);
    assert_eq!((w.bytes_read, w.reads, w.others["Creates"], w.others["Open files"]), (0, 0, 0, 3));
    assert_eq!(ShareStats::default().delta(after).bytes_written, 0);
}
