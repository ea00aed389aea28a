use std::net::IpAddr;

use crate::{MountSpec, Proto};

fn parse(target: &str, options: Option<&str>) -> MountSpec {
    match MountSpec::parse(target, options) {
        Ok(spec) => spec,
        Err(e) => panic!("'{target}' should parse: {e}"),
    }
}

#[test]
fn the_url_from_the_issue_parses_to_four_connections() {
    let s = parse("nfs://host/export?version=3&nconnect=4", None);
    assert_eq!(
        (s.server.as_str(), s.export.as_str(), s.nconnect, s.vers),
        ("host", "/export", 4, crate::NfsVersion::V3)
    );
    assert_eq!((s.port, s.mountport, s.proto), (None, None, Proto::Tcp));
    assert!(s.notices.is_empty());
}

#[test]
fn host_colon_export_keeps_the_host_as_given() {
    for (target, server, export) in [
        ("10.1.2.3:/export", "10.1.2.3", "/export"),
        ("filer-01.example.com:/vol/a/b", "filer-01.example.com", "/vol/a/b"),
        ("h:/", "h", "/"),
        ("h:/with:colon", "h", "/with:colon"),
    ] {
        let s = parse(target, None);
        assert_eq!((s.server.as_str(), s.export.as_str()), (server, export), "{target}");
    }
}

#[test]
fn ipv6_servers_are_written_in_brackets_and_stored_without() {
    let s = parse("[::1]:/export", None);
    assert_eq!((s.server.as_str(), s.export.as_str()), ("::1", "/export"));
    assert_eq!(s.connection_addrs().unwrap(), vec!["::1".parse::<IpAddr>().unwrap()]);
    let u = parse("nfs://[fe80::1]:2049/export?nconnect=2", None);
    assert_eq!((u.server.as_str(), u.port, u.nconnect), ("fe80::1", Some(2049), 2));
    assert_eq!(parse("nfs://[::1]/x", None).server, "::1");
}

#[test]
fn the_urls_authority_port_is_the_nfs_port_and_nfsport_overrides_it() {
    assert_eq!(parse("nfs://h:2049/export", None).port, Some(2049));
    assert_eq!(parse("nfs://h:0/export", None).port, None);
    assert_eq!(parse("nfs://h:2049/export?nfsport=3049", None).port, Some(3049));
    assert_eq!(parse("nfs://h/export?nfsport=0&mountport=20048", None).mountport, Some(20048));
}

#[test]
fn url_parameters_set_identity_sizes_and_read_only() {
    let s = parse("nfs://h/e?uid=0&gid=100&rsize=65536&wsize=32768&timeo=100&retrans=5&readonly&sec=sys", None);
    assert_eq!((s.uid, s.gid, s.rsize, s.wsize, s.retrans, s.read_only), (0, 100, 65536, 32768, 5, true));
    assert_eq!(s.timeo, std::time::Duration::from_secs(10));
}

#[test]
fn mount_options_override_url_parameters() {
    let s = parse("nfs://h:2049/export?nconnect=4&nfsport=3049&rsize=65536", Some("nconnect=8,port=2050,rsize=131072"));
    assert_eq!((s.nconnect, s.port, s.rsize), (8, Some(2050), 131_072));
}

#[test]
fn the_url_path_is_percent_decoded_and_the_scheme_is_case_insensitive() {
    assert_eq!(parse("nfs://h/my%3Fpath/with%20space?version=3", None).export, "/my?path/with space");
    assert_eq!(parse("NFS://h/%E2%9C%93", None).export, "/\u{2713}");
    assert_eq!(parse("nfs://h/e?uid=%31%30", None).uid, 10);
    assert_eq!(parse("nfs://h/e?nconnect=04", None).nconnect, 4, "libnfs reads URL numbers as decimal");
}

#[test]
fn harmless_libnfs_parameters_are_notices() {
    let s = parse(
        "nfs://h/e?dircache=0&dircache=1&readdir-buffer=8192,16384&debug=2&autoreconnect=-1&auto-traverse-mounts=0&readahead=0&pagecache=0&xprtsec=none",
        None,
    );
    assert_eq!(s.notices.len(), 8, "{:#?}", s.notices);
    assert!(s.notices[0]
        .starts_with("URL parameter 'dircache=1' has no effect: nfsbench's client keeps no directory cache"));
}
