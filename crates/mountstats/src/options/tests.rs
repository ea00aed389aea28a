use super::*;
use crate::{parse, Mount};

fn golden(name: &str) -> Mount {
    let text = match name {
        "v3-tcp" => include_str!("../../testdata/v3-tcp.txt"),
        "v3-tcp-nconnect4" => include_str!("../../testdata/v3-tcp-nconnect4.txt"),
        "v3-rdma" => include_str!("../../testdata/v3-rdma.txt"),
        "v3-tcp-rsize4m" => include_str!("../../testdata/v3-tcp-rsize4m.txt"),
        "v4-tcp" => include_str!("../../testdata/v4-tcp.txt"),
        "v41-rdma" => include_str!("../../testdata/v41-rdma.txt"),
        "v41-rdma-nconnect2" => include_str!("../../testdata/v41-rdma-nconnect2.txt"),
        other => panic!("no golden file {other}"),
    };
    Mount::find(&parse(text).unwrap(), "/mnt/t").unwrap().clone()
}

fn verdicts(checks: &[OptionCheck]) -> Vec<(&str, Verdict)> {
    checks.iter().map(|c| (c.key.as_str(), c.verdict)).collect()
}

#[test]
fn a_mount_that_got_what_it_asked_is_all_same() {
    let checks = check_options("vers=3,proto=tcp,nolock", &golden("v3-tcp"));
    assert_eq!(verdicts(&checks), [("vers", Verdict::Same), ("proto", Verdict::Same), ("nolock", Verdict::Same)]);
    assert!(!differs(&checks));
}

#[test]
fn nconnect_is_checked_against_the_option_and_the_transports() {
    let checks = check_options("vers=3,proto=tcp,nconnect=4", &golden("v3-tcp-nconnect4"));
    let n = &checks[2];
    assert_eq!((n.verdict, n.negotiated.as_deref()), (Verdict::Same, Some("4 (4 transports)")));
    let one = check_options("nconnect=1", &golden("v3-tcp"));
    assert_eq!((one[0].verdict, one[0].negotiated.as_deref()), (Verdict::Same, Some("1 (1 transport)")));
}

#[test]
fn nconnect_the_kernel_ignored_over_rdma_differs() {
    let checks = check_options("vers=4.1,proto=rdma,port=20049,nconnect=2", &golden("v41-rdma-nconnect2"));
    assert_eq!(
        verdicts(&checks),
        [("vers", Verdict::Same), ("proto", Verdict::Same), ("port", Verdict::Same), ("nconnect", Verdict::Differs)]
    );
    assert_eq!(checks[3].negotiated.as_deref(), Some("1 (1 transport)"));
    assert!(checks[3].note.as_deref().unwrap().contains("ignored"));
    assert!(differs(&checks));
}

#[test]
fn an_rsize_above_the_servers_maximum_differs_with_the_value_it_got() {
    let checks = check_options("vers=3,rsize=4194304,wsize=4194304", &golden("v3-tcp-rsize4m"));
    let r = &checks[1];
    assert_eq!((r.key.as_str(), r.verdict, r.negotiated.as_deref()), ("rsize", Verdict::Differs, Some("1048576")));
    assert_eq!(
        r.note.as_deref(),
        Some("rsize lowered from 4194304 to 1048576: the server's maximum or the kernel's rounding")
    );
    assert_eq!(checks[2].verdict, Verdict::Differs);
}

#[test]
fn vers_4_differs_and_says_which_minor_version_was_negotiated() {
    let checks = check_options("vers=4", &golden("v4-tcp"));
    assert_eq!((checks[0].verdict, checks[0].negotiated.as_deref()), (Verdict::Differs, Some("4.2")));
    assert_eq!(checks[0].note.as_deref(), Some("vers=4 lets the client choose the minor version: it negotiated 4.2"));
    assert_eq!(check_options("vers=4.2", &golden("v4-tcp"))[0].verdict, Verdict::Same);
}

#[test]
fn aliases_normalise_to_the_kernels_names() {
    let m = golden("v41-rdma");
    let checks = check_options("nfsvers=4.1,rdma,port=20049", &m);
    assert_eq!(verdicts(&checks), [("vers", Verdict::Same), ("proto", Verdict::Same), ("port", Verdict::Same)]);
    assert_eq!(checks[0].asked, "nfsvers=4.1");
    assert_eq!(verdicts(&check_options("v4.1", &m)), [("vers", Verdict::Same)]);
    let folded = check_options("vers=4,minorversion=1", &m);
    assert_eq!(verdicts(&folded), [("vers", Verdict::Same)]);
    assert_eq!(folded[0].asked, "vers=4,minorversion=1");
    assert_eq!(
        verdicts(&check_options("v3,tcp", &golden("v3-tcp"))),
        [("vers", Verdict::Same), ("proto", Verdict::Same)]
    );
}

#[test]
fn the_last_occurrence_of_an_option_wins() {
    let checks = check_options("vers=4.1,rsize=4096,vers=3", &golden("v3-tcp"));
    assert_eq!(verdicts(&checks), [("rsize", Verdict::Differs), ("vers", Verdict::Same)]);
}

#[test]
fn options_the_kernel_never_prints_are_not_shown() {
    let checks =
        check_options("mountport=20048,mountproto=tcp,remoteports=10.0.0.1-10.0.0.4,bg,retry=2", &golden("v4-tcp"));
    assert!(checks.iter().all(|c| c.verdict == Verdict::NotShown), "{checks:?}");
    assert!(checks[0].note.as_deref().unwrap().contains("NFSv4"));
    assert!(!differs(&checks));
}

#[test]
fn mount_protocol_options_of_v3_are_compared() {
    let checks = check_options("mountport=20048,mountproto=tcp,mountvers=3", &golden("v3-tcp"));
    assert_eq!(
        verdicts(&checks),
        [("mountport", Verdict::Same), ("mountproto", Verdict::Same), ("mountvers", Verdict::Same)]
    );
    assert_eq!(check_options("mountport=635", &golden("v3-tcp"))[0].verdict, Verdict::Differs);
}

#[test]
fn port_2049_of_v4_and_port_0_of_v3_are_the_omitted_defaults() {
    assert_eq!(check_options("port=2049", &golden("v4-tcp"))[0].verdict, Verdict::Same);
    assert_eq!(check_options("port=0", &golden("v3-tcp"))[0].verdict, Verdict::Same);
    assert_eq!(check_options("port=2049", &golden("v3-tcp"))[0].verdict, Verdict::Differs);
    assert_eq!(check_options("port=20049", &golden("v3-rdma"))[0].verdict, Verdict::Same);
}

#[test]
fn flags_compare_by_presence_including_their_negations() {
    let m = golden("v3-tcp");
    let checks = check_options("hard,lock,soft,cto,ac,rw,noatime", &m);
    assert_eq!(
        verdicts(&checks),
        [
            ("hard", Verdict::Same),
            ("lock", Verdict::Differs),
            ("soft", Verdict::Differs),
            ("cto", Verdict::Same),
            ("ac", Verdict::Same),
            ("rw", Verdict::Same),
            ("noatime", Verdict::Differs),
        ]
    );
    assert_eq!(checks[1].negotiated.as_deref(), Some("nolock"));
    assert_eq!(checks[2].negotiated.as_deref(), Some("no soft"));
}

#[test]
fn numbers_compare_as_numbers_and_omitted_defaults_as_their_default() {
    let m = golden("v3-tcp");
    let checks = check_options("timeo=0600,retrans=2,actimeo=60,lookupcache=all,lookupcache=positive,sec=krb5:sys", &m);
    assert_eq!(
        verdicts(&checks),
        [
            ("timeo", Verdict::Same),
            ("retrans", Verdict::Same),
            ("actimeo", Verdict::Differs),
            ("lookupcache", Verdict::Differs),
            ("sec", Verdict::Same)
        ]
    );
    assert_eq!(checks[2].negotiated.as_deref(), Some("acregmin=3,acregmax=60,acdirmin=30,acdirmax=60"));
    assert_eq!(checks[3].negotiated.as_deref(), Some("all"));
}

#[test]
fn an_always_printed_option_that_is_missing_differs() {
    let text = "device s:/e mounted on /m with fstype nfs statvers=1.1\n\topts:\trw,vers=3\n";
    let m = parse(text).unwrap().remove(0);
    let checks = check_options("rsize=65536,proto=tcp,unheardof=1", &m);
    assert_eq!(
        verdicts(&checks),
        [("rsize", Verdict::Differs), ("proto", Verdict::Differs), ("unheardof", Verdict::NotShown)]
    );
}

#[test]
fn a_mount_that_is_not_nfs_shows_nothing() {
    let m = parse("device tmpfs mounted on /t with fstype tmpfs\n").unwrap().remove(0);
    let checks = check_options("vers=3", &m);
    assert_eq!(verdicts(&checks), [("vers", Verdict::NotShown)]);
    assert_eq!(checks[0].note.as_deref(), Some("/t is not an NFS mount"));
}

#[test]
fn an_empty_asked_string_checks_nothing() {
    assert!(check_options("", &golden("v3-tcp")).is_empty());
    assert!(check_options(" , ,", &golden("v3-tcp")).is_empty());
}

#[test]
fn serialises_verdicts_in_snake_case() {
    let checks = check_options("vers=3", &golden("v3-tcp"));
    let json = serde_json::to_value(&checks).unwrap();
    assert_eq!(json[0]["verdict"], "same");
    assert_eq!(json[0]["negotiated"], "3");
}
