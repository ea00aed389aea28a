//! Random mutations of the golden vectors (a fixed-seed generator, so a failure repeats): parsing,
//! windows, option checks and serialisation never panic, and what parses stays within the input.

use mountstats::{check_options, parse, Mount};

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Fragments that matter to the parser: labels, separators, escapes, big and odd numbers.
const PIECES: [&str; 22] = [
    "\t",
    "\n",
    " ",
    ":",
    ",",
    "=",
    "\\",
    "\\040",
    "\\777",
    "device ",
    " mounted on ",
    " with fstype ",
    "nfs statvers=1.1",
    "\txprt:\trdma ",
    "\txprt:\tudp 1",
    "per-op statistics",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "\u{fffd}",
    "é",
    "\tREAD: 1 2 3",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(s.len() + 1);
        match rng.below(6) {
            0 if !s.is_empty() => {
                let end = (at + rng.below(40)).min(s.len());
                s.drain(at.min(end)..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                s.splice(at..at, piece.chars());
            }
            2 if at < s.len() => s[at] = char::from(rng.below(128) as u8),
            3 => {
                // Duplicate a run (lines, sections).
                let start = rng.below(s.len());
                let end = (start + rng.below(400)).min(s.len());
                let run: Vec<char> = s[start..end].to_vec();
                s.splice(at..at, run);
            }
            4 => s.truncate(at),
            _ if at < s.len() && s[at].is_ascii_digit() => s.insert(at, char::from(b'0' + rng.below(10) as u8)),
            _ => {}
        }
    }
    s.into_iter().collect()
}

fn exercise(text: &str) {
    let Ok(mounts) = parse(text) else { return };
    assert!(mounts.len() <= text.lines().count(), "more mounts than lines");
    let mut previous: Option<&Mount> = None;
    for m in &mounts {
        assert!(m.device.len() + m.mountpoint.len() + m.fstype.len() <= text.len());
        if let Some(nfs) = &m.nfs {
            assert!(nfs.ops.len() + nfs.transports.len() <= text.lines().count());
        }
        let idle = m.delta(m);
        assert!(idle.ops.is_empty(), "a mount against itself did nothing: {:?}", idle.ops);
        assert!(idle.transports.iter().all(|t| t.sends == 0 && t.recvs == 0));
        let w = m.delta(previous.unwrap_or(m));
        assert_eq!(w.transports.len(), m.transports().len());
        let _ = check_options("vers=4,nfsvers=3,v4.1,minorversion=9,nconnect=x,port=,rsize=1m,actimeo=3,sec=,ro", m);
        let _ = check_options(text.lines().next().unwrap_or(""), m);
        serde_json::to_string(m).expect("a mount serialises");
        serde_json::to_string(&w).expect("a window serialises");
        previous = Some(m);
    }
}

#[test]
fn random_mutations_of_the_golden_text_never_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt") && p.file_name().is_some_and(|n| n != "kernel.txt"))
        .collect();
    names.sort();
    assert!(names.len() >= 9, "{names:?}");
    let mut rng = Rng(0x6d6f_756e_7473_7461);
    for path in &names {
        let text = std::fs::read_to_string(path).unwrap();
        exercise(&text);
        // Just the NFS section too, where the parser does most of its work.
        let nfs = &text[text.find("device 10.99").unwrap()..];
        for _ in 0..200 {
            exercise(&mutate(&mut rng, nfs));
        }
        for _ in 0..20 {
            exercise(&mutate(&mut rng, &text));
        }
    }
}

#[test]
fn hostile_shapes_parse_or_fail_cleanly() {
    let cases = [
        "device ".to_string(),
        "device  mounted on  with fstype ".to_string(),
        "device a mounted on /m with fstype nfs\n".repeat(1000),
        format!("device a mounted on /m with fstype nfs\n\topts:\t{}\n", ",".repeat(100_000)),
        format!("device a mounted on /m with fstype nfs\n\tevents:\t{}\n", "9".repeat(10_000)),
        format!("device a mounted on /m with fstype nfs\n\txprt:\ttcp {}\n", "1 ".repeat(50_000)),
        "device a mounted on /m with fstype nfs\n\tper-op statistics\n\t: 1 2 3 4 5 6 7 8\n".to_string(),
        "device a mounted on /m with fstype nfs\r\n\topts:\trw\r\n".to_string(),
        "device a\\ mounted on /m\\ with fstype nfs\n".to_string(),
    ];
    for text in &cases {
        exercise(text);
    }
    let opts_only = parse(&cases[3]).unwrap();
    assert!(opts_only[0].nfs.as_ref().unwrap().opts.is_empty(), "empty entries are dropped");
    let wide = parse(&cases[5]).unwrap();
    assert_eq!(wide[0].transports()[0].extra.len(), 50_000 - 13, "extras bounded by the line");
}
