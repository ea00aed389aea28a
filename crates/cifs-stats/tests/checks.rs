//! Asked against negotiated over the lab captures: each asked option's verdict, with passwords never
//! shown.

use cifs_stats::{check_options, differs, parse_debug_data, Connection, OptionCheck, Verdict};

fn text(name: &str) -> String {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The run's connection and its /proc/mounts line (whole, as the capture has it).
fn run(name: &str) -> (Connection, String) {
    let d = parse_debug_data(&text(&format!("{name}.DebugData"))).expect("a golden DebugData parses");
    (d.for_share("//10.99.0.1/bench").expect("the bench share").clone(), text(&format!("{name}.proc-mounts")))
}

fn checks(name: &str, asked: &str) -> Vec<OptionCheck> {
    let (conn, line) = run(name);
    check_options(asked, &conn, &line)
}

fn one(name: &str, asked: &str) -> OptionCheck {
    let mut c = checks(name, asked);
    assert_eq!(c.len(), 1, "{asked}: {c:?}");
    c.remove(0)
}

fn verdict(name: &str, asked: &str) -> Verdict {
    one(name, asked).verdict
}

#[test]
fn what_the_lab_asked_is_what_it_got() {
    let tcp = checks("tcp", "vers=3.1.1,username=nfsbench,password=nfsbench");
    assert!(!differs(&tcp), "{tcp:?}");
    let verdicts: Vec<(&str, Verdict)> = tcp.iter().map(|c| (c.key.as_str(), c.verdict)).collect();
    assert_eq!(verdicts, [("vers", Verdict::Same), ("username", Verdict::Same), ("password", Verdict::NotShown)]);
    assert_eq!(tcp[0].negotiated.as_deref(), Some("3.1.1"));
    let rdma = checks("rdma", "rdma,vers=3.1.1,username=nfsbench,password=nfsbench");
    assert!(!differs(&rdma), "{rdma:?}");
    assert_eq!(rdma[0].negotiated.as_deref(), Some("SMB Direct (protocol 0x100)"));
    let mc = checks("rdma-mc", "rdma,multichannel,max_channels=2,vers=3.1.1,username=nfsbench,password=nfsbench");
    assert!(!differs(&mc), "{mc:?}");
    let tcp_mc = checks("tcp-mc", "multichannel,max_channels=2,vers=3.1.1,username=nfsbench,password=nfsbench");
    let differing: Vec<&str> =
        tcp_mc.iter().filter(|c| c.verdict == Verdict::Differs).map(|c| c.key.as_str()).collect();
    assert_eq!(differing, ["multichannel", "max_channels"]);
}

#[test]
fn rdma_asked_on_a_tcp_mount_differs() {
    let c = one("tcp", "rdma");
    assert_eq!((c.verdict, c.negotiated.as_deref()), (Verdict::Differs, Some("tcp")));
    assert_eq!(c.note.as_deref(), Some("the mount is on TCP"));
    let mut gone = run("rdma").0;
    gone.smbd = None;
    let c = check_options("rdma", &gone, "");
    assert_eq!(c[0].verdict, Verdict::Differs);
    assert!(c[0].note.as_deref().unwrap().contains("not available"));
}

#[test]
fn dialects_exact_and_chosen_by_the_server() {
    let c = one("tcp", "vers=3.0");
    assert_eq!((c.verdict, c.negotiated.as_deref()), (Verdict::Differs, Some("3.1.1")));
    assert_eq!(verdict("tcp", "vers=3.02"), Verdict::Differs);
    assert_eq!(verdict("tcp", "vers=2.1"), Verdict::Differs);
    assert_eq!(verdict("tcp", "vers=3.11"), Verdict::Same);
    let any = one("rdma", "vers=3");
    assert_eq!(any.verdict, Verdict::Same);
    assert!(any.note.as_deref().unwrap().contains("picked 3.1.1"), "{any:?}");
    assert_eq!(verdict("rdma", "vers=default"), Verdict::Same);
    let bad = one("tcp", "vers=4");
    assert_eq!(bad.verdict, Verdict::Differs);
    assert!(bad.note.as_deref().unwrap().contains("no vers=4"));
    let mut smb2 = run("tcp").0;
    smb2.dialect = Some("2.1".into());
    assert_eq!(check_options("vers=3", &smb2, "")[0].verdict, Verdict::Differs);
    assert_eq!(check_options("vers=default", &smb2, "")[0].verdict, Verdict::Same);
    smb2.dialect = None;
    assert_eq!(check_options("vers=3.1.1", &smb2, "vers=3.1.1")[0].verdict, Verdict::Same, "from the mount line");
    assert_eq!(check_options("vers=3.1.1", &smb2, "rw")[0].verdict, Verdict::NotShown);
}

#[test]
fn smb_direct_caps_the_io_size() {
    let r = one("rdma", "rsize=4194304");
    assert_eq!((r.verdict, r.negotiated.as_deref()), (Verdict::Differs, Some("2097152")));
    assert!(r.note.as_deref().unwrap().contains("max_readwrite_size"), "{r:?}");
    assert_eq!(verdict("rdma", "wsize=2097152"), Verdict::Same);
    assert_eq!(verdict("rdma", "wsize=0x200000"), Verdict::Same, "the kernel reads base 0");
    assert_eq!(verdict("tcp", "rsize=4194304"), Verdict::Same);
    let over = one("tcp", "wsize=8388608");
    assert_eq!(over.verdict, Verdict::Differs);
    assert!(over.note.as_deref().unwrap().contains("server's maximum"), "{over:?}");
}

#[test]
fn channels_that_did_not_come_up_differ() {
    for asked in ["multichannel", "max_channels=2"] {
        let c = one("tcp-mc", asked);
        assert_eq!(c.verdict, Verdict::Differs, "{asked}");
        assert_eq!(c.negotiated.as_deref(), Some("1 channel (mount line: max_channels=2)"));
        assert!(c.note.as_deref().unwrap().starts_with("only 1 of 2 channels came up"), "{c:?}");
        assert_eq!(verdict("rdma-mc", asked), Verdict::Same, "{asked}");
    }
    assert_eq!(verdict("rdma-mc", "max_channels=4"), Verdict::Differs);
    assert_eq!(verdict("tcp", "nomultichannel"), Verdict::Same);
    assert_eq!(verdict("rdma-mc", "max_channels=17"), Verdict::Differs);
}

#[test]
fn passwords_are_never_shown() {
    let (conn, line) = run("tcp");
    let asked = "username=nfsbench%hunter2,password=hunter2,pass=hun,,ter2,vers=3.1.1";
    let all = check_options(asked, &conn, &line);
    let shown = format!("{all:?}");
    assert!(!shown.contains("hunter2") && !shown.contains("hun,ter2") && !shown.contains("ter2"), "{shown}");
    let pass = all.iter().find(|c| c.key == "password").unwrap();
    assert_eq!((pass.asked.as_str(), pass.verdict, pass.negotiated.as_deref()), ("pass=***", Verdict::NotShown, None));
    let user = all.iter().find(|c| c.key == "username").unwrap();
    assert_eq!((user.asked.as_str(), user.verdict), ("username=nfsbench%***", Verdict::Same));
}

#[test]
fn credentials_and_ids() {
    assert_eq!(verdict("tcp", "user=nfsbench"), Verdict::Same);
    assert_eq!(verdict("tcp", "username=LAB/nfsbench"), Verdict::Same);
    assert_eq!(verdict("tcp", "username=other"), Verdict::Differs);
    assert_eq!(verdict("tcp", "credentials=/etc/smb-cred"), Verdict::NotShown);
    assert_eq!(verdict("tcp", "domain=LAB"), Verdict::Differs);
    assert_eq!(verdict("tcp", "uid=0"), Verdict::Same);
    assert_eq!(verdict("tcp", "gid=1000"), Verdict::Differs);
    let named = one("tcp", "uid=root");
    assert_eq!((named.verdict, named.negotiated.as_deref()), (Verdict::NotShown, Some("0")));
    assert_eq!(verdict("tcp", "file_mode=0755"), Verdict::Same);
    assert_eq!(verdict("tcp", "dirmode=0755"), Verdict::Same);
    let decimal = one("tcp", "file_mode=755");
    assert_eq!(decimal.verdict, Verdict::Differs);
    assert!(decimal.note.as_deref().unwrap().contains("decimal"), "{decimal:?}");
}

#[test]
fn options_the_mount_line_prints() {
    let same = [
        "cache=strict",
        "actimeo=1",
        "acregmax=1",
        "closetimeo=1",
        "soft",
        "nohard",
        "serverino",
        "mapposix",
        "nounix",
        "addr=10.99.0.1",
        "ip=10.99.0.1",
        "bsize=1048576",
        "echo_interval=60",
        "max_credits=32000",
        "rasize=0",
        "noforceuid",
        "rw",
        "relatime",
    ];
    for asked in same {
        assert_eq!(verdict("tcp", asked), Verdict::Same, "{asked}: {:?}", one("tcp", asked));
    }
    let different =
        ["cache=none", "actimeo=30", "hard", "seal", "posix", "noserverino", "nosparse", "ro", "iocharset=utf8"];
    for asked in different {
        assert_eq!(verdict("tcp", asked), Verdict::Differs, "{asked}: {:?}", one("tcp", asked));
    }
    assert_eq!(one("tcp", "seal").negotiated.as_deref(), Some("no seal"));
}

#[test]
fn options_not_in_the_mount_line() {
    for asked in ["sign", "port=445", "nconnect=4", "netbiosname=x", "_netdev", "frobnicate", "frob=1"] {
        let c = one("tcp", asked);
        assert_eq!(c.verdict, Verdict::NotShown, "{asked}: {c:?}");
        assert!(c.note.is_some(), "{asked}");
    }
    assert_eq!(one("tcp", "frob=1").note.as_deref(), Some("not checked"));
    assert_eq!(verdict("tcp", "sign"), Verdict::NotShown);
    let (conn, _) = run("tcp");
    assert_eq!(check_options("sign", &conn, "sec=ntlmsspi")[0].verdict, Verdict::Same);
    assert_eq!(check_options("sign", &conn, "sec=ntlmssp")[0].verdict, Verdict::Differs);
}

#[test]
fn the_last_occurrence_wins_and_options_line_alone_works() {
    let (conn, line) = run("tcp");
    let opts = line.split_whitespace().nth(3).unwrap();
    let c = check_options(" vers=3.0, vers=3.1.1 ,cache=strict,", &conn, opts);
    assert_eq!(c.len(), 2);
    assert!(!differs(&c), "{c:?}");
    assert!(check_options("", &conn, opts).is_empty());
}
