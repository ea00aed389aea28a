use super::header::unescape_octal;
use super::*;
use crate::error::ParseError;

const NFS_SECTION: &str = "device rootfs mounted on / with fstype rootfs
device 10.99.0.1:/srv/nfs mounted on /mnt/my\\040dir with fstype nfs statvers=1.1
\topts:\trw,vers=3,rsize=1048576,wsize=1048576,hard,nolock,proto=tcp,nconnect=2
\tage:\t7
\tcaps:\tcaps=0xf,wtmult=4096,dtsize=1048576,bsize=0,namlen=255
\tsec:\tflavor=1,pseudoflavor=1
\tevents:\t2 9 0 0 4 2 19 0 0 0 0 0 2 0 6 0 0 3 0 0 0 0 0 0 0 0 0 
\tbytes:\t0 0 5242880 4456448 4194304 4456448 0 0 
\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)
\txprt:\ttcp 831 1 2 0 0 26 26 0 26 0 2 0 0
\txprt:\ttcp 819 1 2 0 0 23 23 0 23 0 2 0 0
\tper-op statistics
\t        NULL: 1 1 0 44 24 13 1 14 0
\t        READ: 5 6 0 560 4194944 1 29 31 0
\tOPEN_DOWNGRADE: 0 0 0 0 0 0 0 0
";

#[test]
fn reads_every_line_of_an_nfs_section() {
    let mounts = parse(NFS_SECTION).unwrap();
    assert_eq!(mounts.len(), 2);
    assert!(mounts[0].nfs.is_none());
    let m = &mounts[1];
    assert_eq!(
        (m.device.as_str(), m.mountpoint.as_str(), m.fstype.as_str()),
        ("10.99.0.1:/srv/nfs", "/mnt/my dir", "nfs")
    );
    let n = m.nfs.as_ref().unwrap();
    assert_eq!(n.statvers.as_deref(), Some("1.1"));
    assert_eq!(m.option("rsize"), Some("1048576"));
    assert_eq!(m.option("nolock"), Some(""));
    assert_eq!(n.age, Some(7));
    assert_eq!(n.caps.len(), 5);
    assert_eq!(n.events.get("vfs_access"), Some(19));
    assert_eq!(n.bytes.get("direct_write"), Some(4456448));
    let rpc = n.rpc.as_ref().unwrap();
    assert_eq!((rpc.version.as_str(), rpc.program, rpc.program_version), ("1.1", Some(100003), Some(3)));
    assert_eq!(rpc.program_name.as_deref(), Some("nfs"));
    assert_eq!(n.transports.len(), 2);
    assert_eq!(n.transports[1].srcport, Some(819));
    assert_eq!(n.ops.len(), 3);
    let read = m.op("READ").unwrap();
    assert_eq!((read.ops, read.ntrans, read.bytes_recv, read.rtt_ms, read.errors), (5, 6, 4194944, 29, Some(0)));
    let long = m.op("OPEN_DOWNGRADE").unwrap();
    assert_eq!(long.errors, None, "an older kernel's eight fields");
    assert!(n.skipped_lines.is_empty());
}

#[test]
fn skips_garbled_lines_inside_a_section_and_records_their_numbers() {
    let text = "device a mounted on /m with fstype nfs4 statvers=1.1
\topts:\trw,vers=4.2
\tevents:\t1 2 x
\txprt:\ttcp 1 2
\txprt:\tquic 1 2 3 4 5 6 7 8 9 10
\twhat is this
\tper-op statistics
\t        READ: 1 2
\t       WRITE: 1 1 0 10 10 1 1 1 0
\t       WRITE: 2 2 0 10 10 1 1 1 0
";
    let m = &parse(text).unwrap()[0];
    let n = m.nfs.as_ref().unwrap();
    assert_eq!(n.skipped_lines, vec![3, 4, 5, 6, 8, 10], "a repeated op name is garbage");
    assert!(n.events.is_empty() && n.transports.is_empty());
    assert_eq!(n.ops.len(), 1);
}

#[test]
fn names_the_line_that_belongs_to_no_section() {
    let err = parse("garbage\ndevice a mounted on /m with fstype nfs\n").unwrap_err();
    assert_eq!(err, ParseError::UnexpectedLine { line: 1, text: "garbage".into() });
    let err = parse("device a mounted on /m with fstype ext4\nnot indented\n").unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
    let err = parse("\tindented before any device\n").unwrap_err();
    assert!(matches!(err, ParseError::UnexpectedLine { line: 1, .. }));
}

#[test]
fn names_a_device_line_without_its_parts() {
    let err = parse("device a on /m with fstype nfs\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "mountstats line 1: a device line without \" mounted on \": \"device a on /m with fstype nfs\""
    );
    let err = parse("device a mounted on /m\n").unwrap_err();
    assert!(matches!(err, ParseError::BadDeviceLine { missing: " with fstype ", .. }));
}

#[test]
fn reads_no_device_and_empty_text() {
    let mounts = parse("device no device mounted on /x with fstype foo\n").unwrap();
    assert_eq!(mounts[0].device, "no device");
    assert!(parse("").unwrap().is_empty());
    assert!(parse("\n\n").unwrap().is_empty());
}

#[test]
fn a_section_with_statvers_is_nfs_whatever_its_type() {
    let mounts = parse("device a mounted on /m with fstype nfs3x statvers=1.1\n\tage:\t3\n").unwrap();
    assert_eq!(mounts[0].nfs.as_ref().unwrap().age, Some(3));
}

#[test]
fn decodes_octal_escapes_and_keeps_anything_else() {
    assert_eq!(unescape_octal("/a\\040b\\011c\\134d"), "/a b\tc\\d");
    assert_eq!(unescape_octal("/a\\4"), "/a\\4");
    assert_eq!(unescape_octal("/a\\999"), "/a\\999");
    assert_eq!(unescape_octal("/a\\777"), "/a\\777", "beyond a byte: kept");
    assert_eq!(unescape_octal("\\"), "\\");
}

#[test]
fn quotes_at_most_eighty_characters_of_a_bad_line() {
    let long = "x".repeat(500);
    let err = parse(&long).unwrap_err();
    let ParseError::UnexpectedLine { text, .. } = err else { panic!("{err:?}") };
    assert_eq!(text.len(), 83);
}
