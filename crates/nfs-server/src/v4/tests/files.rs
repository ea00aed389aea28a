//! The name space of an export: CREATE (directory, symbolic link, FIFO), REMOVE, RENAME, LINK, READLINK,
//! READDIR with its cookies, verifier and sizes, LOOKUP and LOOKUPP, the change_info4 of each change.

use nfs4_proto::attr::*;
use nfs4_proto::*;

use super::*;

fn create_op<'a>(objtype: CreateType4<'a>, name: &'a str) -> NfsArgOp<'a> {
    NfsArgOp::Create(CreateArgs { objtype, objname: Component4(name.as_bytes()), createattrs: mode_attrs(0o755) })
}

/// The change_info4 of the last result.
fn cinfo(answer: &Answer) -> ChangeInfo4 {
    match answer.res().resarray.last() {
        Some(NfsResOp::Create(Nfs4Result::Ok(ok))) => ok.cinfo,
        Some(NfsResOp::Remove(Nfs4Result::Ok(ok))) => ok.cinfo,
        Some(NfsResOp::Link(Nfs4Result::Ok(ok))) => ok.cinfo,
        other => panic!("no change_info4: {other:?}"),
    }
}

/// The names READDIR lists in `dir` with `maxcount`, from `cookie`: (names, last cookie, eof).
fn readdir(
    c: &Client<'_>,
    dir: NfsFh4,
    cookie: u64,
    verf: Verifier4,
    maxcount: u32,
) -> Result<(Vec<String>, u64, bool, Verifier4), NfsStat4> {
    let answer = c.seq(vec![
        putfh(dir),
        NfsArgOp::Readdir(ReaddirArgs {
            cookie,
            cookieverf: verf,
            dircount: 0,
            maxcount,
            attr_request: Bitmap4::from_bits([FATTR4_TYPE, FATTR4_FILEID, FATTR4_RDATTR_ERROR]),
        }),
    ]);
    let res = answer.res();
    match res.resarray.last() {
        Some(NfsResOp::Readdir(Nfs4Result::Ok(ok))) => {
            let names = ok.reply.entries.iter().map(|e| String::from_utf8_lossy(&e.name).into_owned()).collect();
            let last = ok.reply.entries.last().map_or(cookie, |e| e.cookie);
            Ok((names, last, ok.reply.eof, ok.cookieverf))
        }
        Some(other) => Err(other.status()),
        None => Err(res.status),
    }
}

#[test]
fn create_makes_directories_links_and_fifos_and_the_new_object_is_current() {
    let server = server();
    let c = Client::new(&server, "create");
    c.mount();
    let dir = c.export_fh();
    let made = c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "sub"), getattr(&[FATTR4_TYPE, FATTR4_MODE])]);
    assert_eq!(made.status(), OK, "{:?}", made.statuses());
    let attrs = made.attrs();
    let attrs = attrs.decode_attrs().expect("decode");
    assert_eq!((attrs.ftype, attrs.mode), (Some(NfsFtype4::Dir), Some(0o755)));
    let link = c.seq(vec![putfh(dir), create_op(CreateType4::Link(b"sub/target"), "ln"), NfsArgOp::Readlink]);
    let res = link.res();
    let Some(NfsResOp::Readlink(Nfs4Result::Ok(ok))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!(ok.link, b"sub/target");
    assert_eq!(link.reply.payloads().len(), 1, "READLINK's text is a payload");
    let fifo = c.seq(vec![putfh(dir), create_op(CreateType4::Fifo, "pipe"), getattr(&[FATTR4_TYPE])]);
    assert_eq!(fifo.attrs().decode_attrs().expect("decode").ftype, Some(NfsFtype4::Fifo));
    let regular = c.seq(vec![putfh(dir), create_op(CreateType4::Other(NfsFtype4::Reg), "reg")]);
    assert_eq!(regular.status(), err(NfsErr4::BadType), "regular files are OPEN's");
    let again = c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "sub")]);
    assert_eq!(again.status(), err(NfsErr4::Exist));
    let dot = c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "..")]);
    assert_eq!(dot.status(), err(NfsErr4::BadName));
}

#[test]
fn directory_changes_report_the_change_attribute_before_and_after() {
    let server = server();
    let c = Client::new(&server, "cinfo");
    c.mount();
    let dir = c.export_fh();
    let made = c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "d")]);
    let info = cinfo(&made);
    assert!(!info.atomic);
    assert!(info.after > info.before, "{info:?}");
    let now = c.seq(vec![putfh(dir), getattr(&[FATTR4_CHANGE])]).attrs();
    assert_eq!(now.decode_attrs().expect("decode").change, Some(info.after));
}

#[test]
fn remove_takes_files_and_empty_directories_only() {
    let server = server();
    let c = Client::new(&server, "remove");
    c.mount();
    let dir = c.export_fh();
    c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "full"), create_op(CreateType4::Dir, "inner")]);
    let remove = |name: &str| {
        c.seq(vec![putfh(dir), NfsArgOp::Remove(RemoveArgs { target: Component4(name.as_bytes()) })]).status()
    };
    assert_eq!(remove("full"), err(NfsErr4::NotEmpty));
    let (_, _) = c.create(dir, "file");
    assert_eq!(remove("file"), OK);
    assert_eq!(remove("file"), err(NfsErr4::NoEnt));
    assert_eq!(remove(""), err(NfsErr4::Inval));
}

#[test]
fn rename_moves_between_the_saved_and_the_current_directory() {
    let server = server();
    let c = Client::new(&server, "rename");
    c.mount();
    let dir = c.export_fh();
    let sub = c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "to"), NfsArgOp::Getfh]).fh();
    c.create(dir, "moving");
    let answer = c.seq(vec![
        putfh(dir),
        NfsArgOp::Savefh,
        putfh(sub),
        NfsArgOp::Rename(RenameArgs { oldname: Component4(b"moving"), newname: Component4(b"moved") }),
    ]);
    let res = answer.res();
    let Some(NfsResOp::Rename(Nfs4Result::Ok(ok))) = res.resarray.last() else { panic!("{res:?}") };
    assert!(ok.source_cinfo.after > ok.source_cinfo.before && ok.target_cinfo.after > ok.target_cinfo.before);
    assert_eq!(c.seq(vec![putfh(sub), lookup("moved")]).status(), OK);
    assert_eq!(c.seq(vec![putfh(dir), lookup("moving")]).status(), err(NfsErr4::NoEnt));
    let no_saved =
        c.seq(vec![putfh(dir), NfsArgOp::Rename(RenameArgs { oldname: Component4(b"a"), newname: Component4(b"b") })]);
    assert_eq!(no_saved.status(), err(NfsErr4::NoFileHandle));
}

#[test]
fn link_names_the_saved_file_in_the_current_directory_but_not_a_directory() {
    let server = server();
    let c = Client::new(&server, "link");
    c.mount();
    let dir = c.export_fh();
    let (_, file) = c.create(dir, "orig");
    let linked = c.seq(vec![
        putfh(file),
        NfsArgOp::Savefh,
        putfh(dir),
        NfsArgOp::Link(LinkArgs { newname: Component4(b"alias") }),
        NfsArgOp::Getfh,
    ]);
    assert_eq!(linked.status(), OK, "{:?}", linked.statuses());
    assert_eq!(linked.fh(), dir, "the directory stays current");
    let attrs = c.seq(vec![putfh(file), getattr(&[FATTR4_NUMLINKS])]).attrs();
    assert_eq!(attrs.decode_attrs().expect("decode").numlinks, Some(2));
    let of_dir = c.seq(vec![putfh(dir), NfsArgOp::Savefh, NfsArgOp::Link(LinkArgs { newname: Component4(b"d") })]);
    assert_eq!(of_dir.status(), err(NfsErr4::IsDir));
}

#[test]
fn readdir_pages_with_cookies_and_refuses_a_stale_verifier_and_reserved_cookies() {
    let server = server();
    let c = Client::new(&server, "readdir");
    c.mount();
    let dir = c.export_fh();
    for i in 0..30 {
        c.seq(vec![putfh(dir), create_op(CreateType4::Dir, &format!("entry-{i:02}"))]);
    }
    let mut seen = Vec::new();
    let (mut cookie, mut verf) = (0, Verifier4::default());
    loop {
        let (names, last, eof, v) = readdir(&c, dir, cookie, verf, 400).expect("readdir");
        assert!(!names.is_empty(), "a page holds at least one entry");
        seen.extend(names);
        (cookie, verf) = (last, v);
        if eof {
            break;
        }
    }
    seen.sort();
    let expected: Vec<String> = (0..30).map(|i| format!("entry-{i:02}")).collect();
    assert_eq!(seen, expected, "every entry once, no . or ..");
    assert_eq!(readdir(&c, dir, 1, Verifier4::default(), 4096), Err(err(NfsErr4::BadCookie)));
    assert_eq!(readdir(&c, dir, 5, Verifier4([9; 8]), 4096), Err(err(NfsErr4::NotSame)));
    assert_eq!(readdir(&c, dir, 0, Verifier4::default(), 20), Err(err(NfsErr4::TooSmall)));
}

#[test]
fn lookupp_climbs_to_the_export_root_and_out_into_the_pseudo_root() {
    let server = server();
    let c = Client::new(&server, "lookupp");
    c.mount();
    let dir = c.export_fh();
    c.seq(vec![putfh(dir), create_op(CreateType4::Dir, "child")]);
    let up = c.seq(vec![putfh(dir), lookup("child"), NfsArgOp::Lookupp, NfsArgOp::Getfh]);
    assert_eq!(up.fh(), dir);
    let root = c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::Getfh]).fh();
    let out = c.seq(vec![putfh(dir), NfsArgOp::Lookupp, NfsArgOp::Getfh]);
    assert_eq!(out.fh(), root);
    assert_eq!(c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::Lookupp]).status(), err(NfsErr4::NoEnt));
    let (_, file) = c.create(dir, "plain");
    assert_eq!(c.seq(vec![putfh(file), lookup("x")]).status(), err(NfsErr4::NotDir));
}

#[test]
fn operations_on_a_handle_never_issued_are_bad_or_stale() {
    let server = server();
    let c = Client::new(&server, "forged");
    c.mount();
    let forged = NfsFh4::new(&[2u8; 36]).expect("handle");
    assert_eq!(c.seq(vec![putfh(forged)]).status(), err(NfsErr4::BadHandle));
    let other = self::server();
    let theirs = other.root_handle("/export").expect("root");
    let foreign = NfsFh4::new(theirs.as_bytes()).expect("handle");
    let status = c.seq(vec![putfh(foreign)]).status();
    assert!(status == err(NfsErr4::Stale) || status == err(NfsErr4::BadHandle), "{status:?}");
}
