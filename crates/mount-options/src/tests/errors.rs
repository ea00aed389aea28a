use super::{error, target_error};
use crate::{MountSpec, OptionsError, Origin};

/// Every option here must fail with the variant `kind` and a message that names it as written.
fn all_fail(kind: fn(&OptionsError) -> bool, options: &[&str]) {
    for opts in options {
        let (e, message) = error(opts);
        assert!(kind(&e), "'{opts}' gave {e:?}");
        assert!(message.contains(&format!("'{opts}'")), "'{opts}' not named in: {message}");
    }
}

#[test]
fn nfs_versions_2_and_4_0_are_refused_by_name_with_the_reason() {
    let (_, message) = error("vers=4.0");
    assert_eq!(
        message,
        "unsupported mount option 'vers=4.0': NFSv4.0 has no sessions; nfsbench speaks NFSv3, NFSv4.1 and NFSv4.2 \
         (vers=4.1 or vers=4.2)"
    );
    assert!(error("vers=4,minorversion=0").1.contains("'minorversion=0': NFSv4.0 has no sessions"));
    all_fail(
        |e| matches!(e, OptionsError::Unsupported { .. }),
        &["vers=2", "vers=4.0", "nfsvers=4.0", "v2", "v4.0", "minorversion=0", "mountvers=1", "mountvers=2"],
    );
    all_fail(
        |e| matches!(e, OptionsError::BadValue { .. }),
        &["vers=5", "vers=3.0", "vers=4.3", "vers=", "mountvers=4", "minorversion=3", "minorversion=one"],
    );
}

#[test]
fn a_minor_version_without_nfsv4_is_refused_as_the_kernel_refuses_it() {
    for options in ["minorversion=1", "vers=3,minorversion=2", "minorversion=1,vers=3"] {
        let (e, message) = error(options);
        assert!(matches!(e, OptionsError::BadValue { .. }), "{options}: {e:?}");
        assert!(message.contains("'minorversion=") && message.contains("add vers=4"), "{message}");
    }
}

#[test]
fn mount_side_options_an_nfsv3_mount_cannot_use_are_refused_whatever_their_order() {
    for (options, named) in [
        ("mountvers=2,vers=3", "'mountvers=2'"),
        ("mountproto=udp,v3", "'mountproto=udp'"),
        ("vers=4.1,mountproto=tcp6,vers=3", "'mountproto=tcp6'"),
    ] {
        let (e, message) = error(options);
        assert!(matches!(e, OptionsError::Unsupported { .. }), "{options}: {e:?}");
        assert!(message.contains(named), "{options}: {message}");
    }
}

#[test]
fn transports_other_than_tcp_and_rdma_are_refused() {
    all_fail(
        |e| matches!(e, OptionsError::Unsupported { .. }),
        &["udp", "proto=udp", "proto=tcp6", "proto=rdma6", "proto=udp6", "mountproto=udp", "mountproto=tcp6"],
    );
    all_fail(|e| matches!(e, OptionsError::BadValue { .. }), &["proto=sctp", "proto=TCP", "mountproto=rdma"]);
}

#[test]
fn security_other_than_auth_sys_is_refused() {
    all_fail(
        |e| matches!(e, OptionsError::Unsupported { .. }),
        &["sec=krb5", "sec=krb5i", "sec=krb5p", "sec=sys:krb5", "sec=none", "sec=null", "xprtsec=tls", "xprtsec=mtls"],
    );
    all_fail(|e| matches!(e, OptionsError::BadValue { .. }), &["sec=", "sec=:", "sec=unix", "xprtsec=ssl"]);
}

#[test]
fn linux_options_nfsbench_cannot_honour_are_refused_with_a_reason() {
    all_fail(
        |e| matches!(e, OptionsError::Unsupported { .. }),
        &[
            "trunkdiscovery",
            "notrunkdiscovery",
            "migration",
            "write=eager",
            "mounthost=other",
            "mountaddr=10.0.0.1",
            "bsize=4096",
            "sloppy",
            "softreval",
            "context=system_u:object_r:nfs_t:s0",
        ],
    );
}

#[test]
fn unknown_options_are_refused_by_name() {
    let (e, message) = error("rsize=65536,frobnicate=1");
    assert_eq!(e, OptionsError::Unknown { origin: Origin::MountOption, option: "frobnicate=1".into() });
    assert_eq!(message, "unknown mount option 'frobnicate=1'");
    all_fail(|e| matches!(e, OptionsError::Unknown { .. }), &["nobg", "nohard", "readahead=0", "uid=0", "Hard"]);
}

#[test]
fn numbers_out_of_range_or_malformed_are_refused_with_the_value() {
    all_fail(
        |e| matches!(e, OptionsError::BadValue { .. }),
        &[
            "nconnect=0",
            "nconnect=17",
            "nconnect=four",
            "max_connect=0",
            "max_connect=17",
            "port=65536",
            "port=-1",
            "mountport=1e3",
            "rsize=abc",
            "rsize=4294967296",
            "wsize=+4096",
            "timeo=0",
            "timeo=2147483648",
            "retrans=2147483648",
            "actimeo=x",
            "namlen=-1",
            "retry=soon",
            "timeo=0600",
            "rsize=0x100000",
        ],
    );
    assert!(error("timeo=0600").1.contains("Linux reads '0600' as octal"));
    let (_, message) = error("nconnect=17");
    assert_eq!(message, "invalid value in mount option 'nconnect=17': nconnect must be 1..=16");
}

#[test]
fn addresses_and_remoteports_are_validated() {
    all_fail(
        |e| matches!(e, OptionsError::BadValue { .. }),
        &[
            "addr=0.0.0.0",
            "addr=::",
            "addr=server",
            "clientaddr=nowhere",
            "remoteports=",
            "remoteports=1.2.3",
            "remoteports=127.0.0.4-127.0.0.1",
            "remoteports=10.0.0.0-10.0.1.0",
            "remoteports=::1-::2",
            "remoteports=10.0.0.1~~10.0.0.2",
            "remoteports=0.0.0.0-0.0.0.3",
        ],
    );
    let many: Vec<String> = (1..=65).map(|i| format!("10.0.1.{i}")).collect();
    let list = format!("remoteports={}", many.join("~"));
    assert!(error(&list).1.contains("more than 64 addresses"));
    assert!(error("remoteports=10.0.0.1~10.0.0.10-10.0.0.73").1.contains("more than 64 addresses"));
}

#[test]
fn enumerated_values_are_checked_even_for_options_without_effect() {
    all_fail(
        |e| matches!(e, OptionsError::BadValue { .. }),
        &["lookupcache=maybe", "local_lock=some", "fsc=", "fsc=two words"],
    );
}

#[test]
fn values_missing_or_unexpected_are_refused() {
    all_fail(
        |e| matches!(e, OptionsError::MissingValue { .. }),
        &["rsize", "vers", "remoteports", "lookupcache", "sec", "addr", "proto"],
    );
    all_fail(
        |e| matches!(e, OptionsError::UnexpectedValue { .. }),
        &["hard=1", "noac=1", "ro=yes", "tcp=1", "v3=1", "nolock=0", "noatime=1", "udp=1"],
    );
    assert_eq!(error("hard=1").1, "mount option 'hard=1' takes no value");
    assert_eq!(error("rsize").1, "mount option 'rsize' needs a value");
}

#[test]
fn bad_targets_are_refused_saying_why() {
    for (target, why) in [
        ("", "expected HOST:/EXPORT"),
        ("server", "expected HOST:/EXPORT"),
        ("server:export", "must start with '/'"),
        (":/export", "is not a host name"),
        ("bad host:/export", "is not a host name"),
        ("a,b:/export", "server lists"),
        ("fe80::1:/export", "in brackets"),
        ("::1:/export", "in brackets"),
        ("[::1:/export", "no ']:'"),
        ("[server]:/export", "is not an IPv6 address"),
        ("nfs4://h/export", "only URL scheme"),
        ("nfs://h", "no export path"),
        ("nfs:///export", "is not a host name"),
        ("nfs://user@h/export", "Kerberos"),
        ("nfs://h:99999/export", "over 65535"),
        ("nfs://h:abc/export", "not a port number"),
        ("nfs://h:/export", "not a port number"),
        ("nfs://::1/export", "in brackets"),
        ("nfs://[::1/export", "no ']'"),
        ("nfs://[::1]x/export", "':PORT'"),
        ("nfs://h/%zz", "bad %-escape"),
        ("nfs://h/%2", "bad %-escape"),
        ("nfs://h/%ff", "UTF-8"),
        ("nfs://h/a%00b", "NUL"),
    ] {
        let message = target_error(target);
        assert!(message.starts_with(&format!("bad target '{target}': ")), "{message}");
        assert!(message.contains(why), "'{target}': {message}");
    }
    let long = format!("h:/{}", "a".repeat(1024));
    assert!(target_error(&long).contains("MNTPATHLEN"));
}

#[test]
fn libnfs_parameters_nfsbench_cannot_honour_are_refused_by_name() {
    for (url, kind) in [
        ("nfs://h/e?version=4", "unsupported URL parameter 'version=4': libnfs's version=4 is NFSv4.0"),
        ("nfs://h/e?version=4.1", "invalid value in URL parameter 'version=4.1': version is 3 or 4"),
        ("nfs://h/e?readahead=131072", "unsupported URL parameter 'readahead=131072'"),
        ("nfs://h/e?pagecache=1", "unsupported URL parameter 'pagecache=1'"),
        ("nfs://h/e?auto-traverse-mounts=1", "unsupported URL parameter 'auto-traverse-mounts=1'"),
        ("nfs://h/e?tcp-syncnt=3", "unsupported URL parameter 'tcp-syncnt=3'"),
        ("nfs://h/e?if=eth0", "unsupported URL parameter 'if=eth0'"),
        ("nfs://h/e?autoreconnect=0", "unsupported URL parameter 'autoreconnect=0'"),
        ("nfs://h/e?sec=krb5p", "unsupported URL parameter 'sec=krb5p'"),
        ("nfs://h/e?frob=1", "unknown URL parameter 'frob=1'"),
        ("nfs://h/e?hard", "unknown URL parameter 'hard'"),
        ("nfs://h/e?dircache=2", "invalid value in URL parameter 'dircache=2'"),
        ("nfs://h/e?readdir-buffer=8k", "invalid value in URL parameter 'readdir-buffer=8k'"),
        ("nfs://h/e?autoreconnect=forever", "invalid value in URL parameter 'autoreconnect=forever'"),
        ("nfs://h/e?uid=-1", "invalid value in URL parameter 'uid=-1'"),
        ("nfs://h/e?nfsport=70000", "invalid value in URL parameter 'nfsport=70000'"),
        ("nfs://h/e?nconnect=17", "invalid value in URL parameter 'nconnect=17'"),
        ("nfs://h/e?nconnect", "URL parameter 'nconnect' needs a value"),
        ("nfs://h/e?readonly=1", "URL parameter 'readonly=1' takes no value"),
    ] {
        let message = target_error(url);
        assert!(message.starts_with(kind), "'{url}': {message}");
    }
}

#[test]
fn an_error_in_the_options_is_reported_even_after_a_good_url() {
    let e = MountSpec::parse("nfs://h/e?nconnect=4", Some("vers=2")).unwrap_err();
    assert_eq!(e.to_string(), "unsupported mount option 'vers=2': nfsbench speaks NFSv3, NFSv4.1 and NFSv4.2");
}
