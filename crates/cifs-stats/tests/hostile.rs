//! Hostile and garbled text: truncated files and lines, numbers beyond their types, noise, 10 MB of
//! junk, a machine with thousands of servers. Each gives an error naming the file and line, or a
//! bounded result; nothing panics.

use cifs_stats::debugdata::{MAX_CONNECTIONS, MAX_SHARES};
use cifs_stats::stats::{MAX_COMMANDS, MAX_OTHERS, MAX_SHARES as MAX_STATS_SHARES};
use cifs_stats::{check_options, parse_debug_data, parse_stats, CifsStatsError, Connection, Verdict};

const GOLDEN: [&str; 17] = [
    "tcp.DebugData",
    "rdma.DebugData",
    "rdma-mc.DebugData",
    "tcp-mc.DebugData",
    "lo.DebugData",
    "none.DebugData",
    "tcp.Stats.before",
    "tcp.Stats.after",
    "rdma.Stats.before",
    "rdma.Stats.after",
    "rdma-mc.Stats.before",
    "rdma-mc.Stats.after",
    "tcp-mc.Stats.after",
    "rdma-mc-half.Stats",
    "tcp.proc-mounts",
    "rdma.proc-mounts",
    "rdma-mc.proc-mounts",
];

fn text(name: &str) -> String {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Both parsers and a check over whatever came out; none may panic.
fn parse_all(text: &str) {
    if let Ok(d) = parse_debug_data(text) {
        assert!(d.connections.len() <= MAX_CONNECTIONS);
        assert!(d.connections.iter().map(|c| c.shares.len()).sum::<usize>() <= MAX_SHARES);
        for c in &d.connections {
            check_options("rdma,vers=3,multichannel,rsize=1,password=x", c, text);
        }
    }
    if let Ok(s) = parse_stats(text) {
        assert!(s.shares.len() <= MAX_STATS_SHARES && s.commands.len() <= MAX_COMMANDS);
        assert!(s.shares.iter().all(|sh| sh.others.len() <= MAX_OTHERS));
        let _ = s.delta(&s);
    }
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn every_prefix_of_every_capture_parses_or_errs() {
    for name in GOLDEN {
        let t = text(name);
        for (end, _) in t.char_indices() {
            parse_all(&t[..end]);
        }
    }
}

#[test]
fn every_line_cut_short_parses_or_errs() {
    for name in GOLDEN {
        let t = text(name);
        let lines: Vec<&str> = t.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            for cut in [0, line.len() / 3, line.len() / 2, line.len().saturating_sub(1)] {
                let Some(short) = line.get(..cut) else { continue };
                let mut mangled = lines.clone();
                mangled[i] = short;
                parse_all(&mangled.join("\n"));
            }
        }
    }
}

#[test]
fn random_mutations_never_panic() {
    const ALPHABET: &[char] =
        &['0', '1', '9', 'f', 'x', ':', ')', ' ', '\t', '\n', '\\', '/', '-', ',', '=', '%', '\u{fffd}', '\0', 'é'];
    let mut rng = Rng(0x5eed_cafe);
    for name in GOLDEN {
        let original: Vec<char> = text(name).chars().collect();
        for _ in 0..300 {
            let mut t = original.clone();
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(t.len());
                match rng.below(3) {
                    0 => t[at] = ALPHABET[rng.below(ALPHABET.len())],
                    1 => t.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                    _ => {
                        t.remove(at);
                    }
                }
            }
            parse_all(&t.into_iter().collect::<String>());
        }
    }
}

#[test]
fn numbers_beyond_their_types_are_errors_naming_file_and_line() {
    let dd = text("tcp.DebugData");
    let cases = [
        ("Number of credits: 518", "Number of credits: 99999999999999999999999"),
        ("Dialect 0x311", "Dialect 0x10311"),
        ("Dialect 0x311", "Dialect 0xzz"),
        ("Number of credits: 518", "Number of credits: -1"),
    ];
    for (from, to) in cases {
        let e = parse_debug_data(&dd.replacen(from, to, 1)).unwrap_err();
        assert!(matches!(e, CifsStatsError::BadField { line: 10, .. }), "{to}: {e:?}");
        assert!(e.to_string().starts_with("/proc/fs/cifs/DebugData line 10: bad "), "{e}");
    }
    let rdma = text("rdma.DebugData");
    let e = parse_debug_data(&rdma.replace("max_readwrite_size: 200000", "max_readwrite_size: 1ffffffff")).unwrap_err();
    assert_eq!(e.to_string().split(':').next(), Some("/proc/fs/cifs/DebugData line 13"));
    let mc = text("rdma-mc.DebugData");
    assert!(parse_debug_data(&mc.replace("Extra Channels: 1", "Extra Channels: 4294967296")).is_err());

    let st = text("tcp.Stats.after");
    let cases = [
        ("Bytes read: 16777216", "Bytes read: 18446744073709551616"),
        ("SMBs: 160", "SMBs: 1e9"),
        ("Reads: 64 total", "Reads: 99999999999999999999 total"),
        ("  8\t\t64\t177", "  8\t\t64\t99999999999999999999999"),
        ("  8\t\t64\t177", "  70000\t\t64\t177"),
        ("  8\t\t64\t177\t\t1\t6", "  8\t\t64\t177"),
        ("(250 per second)", "(lots per second)"),
    ];
    for (from, to) in cases {
        let e = parse_stats(&st.replacen(from, to, 1)).unwrap_err();
        assert!(matches!(e, CifsStatsError::BadField { file: "/proc/fs/cifs/Stats", .. }), "{to}: {e:?}");
    }
}

#[test]
fn int_counters_printed_negative_wrap_like_the_kernel() {
    let st = text("tcp.Stats.after").replace("SMBs: 160", "SMBs: -2147483648");
    assert_eq!(parse_stats(&st).unwrap().shares[0].smbs, 1 << 31);
}

#[test]
fn ten_megabytes_of_junk() {
    let mut rng = Rng(42);
    let bytes: Vec<u8> = (0..10 << 20).map(|_| rng.next() as u8).collect();
    let junk = String::from_utf8_lossy(&bytes).into_owned();
    for result in [parse_debug_data(&junk).map(|_| ()), parse_stats(&junk).map(|_| ())] {
        let e = result.unwrap_err();
        assert!(matches!(e, CifsStatsError::NotThisFile { .. }), "{e:?}");
        assert!(e.to_string().len() < 400, "the message quotes an excerpt, not the junk");
    }
    // The same junk after a valid header: read, nothing recognised.
    let dd = format!("Display Internal CIFS Data Structures for Debugging\n{junk}");
    assert!(parse_debug_data(&dd).is_ok_and(|d| d.connections.len() <= MAX_CONNECTIONS));
    let st = format!("Resources in use\n{junk}");
    if let Ok(s) = parse_stats(&st) {
        assert!(s.shares.len() <= MAX_STATS_SHARES);
    }
    // One 10 MB line.
    let line = "1) ConnectionId: 0x1 Hostname: ".to_string() + &"a".repeat(10 << 20);
    let e = parse_debug_data(&format!("Display Internal CIFS Data Structures for Debugging\n{line}\n")).unwrap_err();
    assert!(e.to_string().len() < 400);
}

#[test]
fn a_machine_with_thousands_of_servers_is_capped() {
    let mut dd = String::from("Display Internal CIFS Data Structures for Debugging\nServers: \n");
    for i in 0..5000 {
        dd.push_str(&format!(
            "{n}) ConnectionId: 0x{i:x} Hostname: srv{i} \nNumber of credits: 10 Dialect 0x311\n\n\tShares: \n\
             \t0) IPC: \\\\srv{i}\\IPC$ Mounts: 1 DevInfo: 0x0\n",
            n = i + 1
        ));
        for s in 0..3 {
            dd.push_str(&format!("\t{} ) x\n\t{}) \\\\srv{i}\\share{s} Mounts: 1 DevInfo: 0x20\n", s, s + 1));
        }
    }
    let d = parse_debug_data(&dd).unwrap();
    assert!(d.truncated);
    assert_eq!(d.connections.len(), MAX_CONNECTIONS);
    assert_eq!(d.connections.iter().map(|c| c.shares.len()).sum::<usize>(), 3 * MAX_CONNECTIONS);
    assert!(d.for_share("//srv7/share2").is_some());

    let mut many_shares = dd.lines().take(4).collect::<Vec<_>>().join("\n");
    for s in 0..5000 {
        many_shares.push_str(&format!("\n\t{s}) \\\\srv0\\s{s} Mounts: 1\n\t{s}) \\\\srv0\\S{s} Mounts: 1"));
    }
    let d = parse_debug_data(&many_shares).unwrap();
    assert!(d.truncated);
    assert_eq!(d.connections[0].shares.len(), MAX_SHARES, "case-insensitive duplicates once");

    let mut st = String::from("Resources in use\n");
    for i in 0..5000u32 {
        st.push_str(&format!(
            "\nMax requests in flight: 1\nTotal time spent processing by command. Time units are jiffies (250 per second)\n\
             \x20 SMB3 CMD\tNumber\tTotal Time\tFastest\tSlowest\n  {}\t\t1\t1\t\t1\t1\n\n{}) \\\\srv{i}\\share\nSMBs: 1\n\
             Bytes read: 1  Bytes written: 1\nReads: 1 total 0 failed\nC{}: 1 total 1 failed\n",
            i % 65536,
            i + 1,
            i % 100
        ));
    }
    let s = parse_stats(&st).unwrap();
    assert!(s.truncated);
    assert_eq!((s.shares.len(), s.commands.len()), (MAX_STATS_SHARES, MAX_COMMANDS));
    assert_eq!(s.share("//srv3/share").map(|sh| (sh.reads, sh.others.len())), Some((1, 2)));
}

#[test]
fn a_multiuser_share_listed_twice_is_summed() {
    let st = text("tcp.Stats.after");
    let block = st.split_once("\n1) ").unwrap().1;
    let twice = format!("{st}\n2) {}", block.replace(r"\\10.99.0.1\bench", r"\\10.99.0.1\BENCH"));
    let s = parse_stats(&twice).unwrap();
    assert_eq!(s.shares.len(), 1);
    assert_eq!((s.shares[0].reads, s.shares[0].bytes_read, s.shares[0].others["Creates"]), (128, 2 << 24, 20));
}

#[test]
fn not_these_files_at_all() {
    for t in ["", "\n\n", "Resources in use", "hello"] {
        assert!(matches!(parse_debug_data(t), Err(CifsStatsError::NotThisFile { .. })), "{t:?}");
    }
    let e = parse_stats("\n\nDisplay Internal CIFS Data Structures for Debugging\n").unwrap_err();
    assert_eq!(e.to_string(), "/proc/fs/cifs/Stats line 3: not /proc/fs/cifs/Stats: expected \"Resources in use\", found \"Display Internal CIFS Data Structures for Debugging\"");
}

#[test]
fn checks_over_junk_never_panic_nor_leak_a_password() {
    let mut rng = Rng(7);
    let conn = Connection { channels: 0, ..Connection::default() };
    let pieces = [
        "rdma",
        "vers=",
        "rsize=",
        "max_channels=",
        "=",
        ",",
        ",,",
        "0x",
        "0",
        "%",
        "password=s3cr3t",
        "user=a%s3cr3t",
        "file_mode=",
        "addr=[",
        "actimeo",
        "\u{fffd}",
    ];
    for _ in 0..3000 {
        let asked: String = (0..rng.below(12)).map(|_| pieces[rng.below(pieces.len())]).collect();
        let line: String = (0..rng.below(12)).map(|_| pieces[rng.below(pieces.len())]).collect();
        let checks = check_options(&asked, &conn, &line);
        for c in &checks {
            let shown = format!("{c:?}");
            if c.key == "password" || c.key == "username" {
                assert!(!shown.contains("s3cr3t"), "{asked:?} -> {shown}");
            }
            if c.key == "password" {
                assert_eq!(c.verdict, Verdict::NotShown);
            }
        }
    }
}
