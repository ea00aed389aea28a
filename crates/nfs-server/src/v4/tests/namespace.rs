//! The exports as one name space: pseudo directories leading to each export, READDIR and GETATTR of
//! them, a file system per export, nested exports, exports hidden from clients they refuse, and an export
//! at "/" as the root itself.

use nfs4_proto::attr::*;
use nfs4_proto::*;

use super::*;
use crate::IpNet;

fn names(answer: &Answer) -> Vec<String> {
    let res = answer.res();
    match res.resarray.last() {
        Some(NfsResOp::Readdir(Nfs4Result::Ok(ok))) => {
            ok.reply.entries.iter().map(|e| String::from_utf8_lossy(&e.name).into_owned()).collect()
        }
        other => panic!("{other:?}"),
    }
}

fn readdir_op() -> NfsArgOp<'static> {
    NfsArgOp::Readdir(ReaddirArgs {
        cookie: 0,
        cookieverf: Verifier4::default(),
        dircount: 0,
        maxcount: 8192,
        attr_request: Bitmap4::from_bits([FATTR4_TYPE, FATTR4_FSID, FATTR4_MOUNTED_ON_FILEID, FATTR4_FILEID]),
    })
}

fn fsid_of(c: &Client<'_>, fh: NfsFh4) -> Fsid4 {
    let raw = c.seq(vec![putfh(fh), getattr(&[FATTR4_FSID])]).attrs();
    raw.decode_attrs().expect("decode").fsid.expect("fsid")
}

#[test]
fn pseudo_directories_lead_to_every_export_each_a_file_system_of_its_own() {
    let server = server_with(vec![export("/export", mem()), export("/data/a", mem()), export("/data/b", mem())]);
    let c = Client::new(&server, "pseudo");
    c.mount();
    let root = c.seq(vec![NfsArgOp::Putrootfh, readdir_op()]);
    let mut top = names(&root);
    top.sort();
    assert_eq!(top, ["data", "export"]);
    let data = c.seq(vec![NfsArgOp::Putrootfh, lookup("data"), readdir_op()]);
    let mut below = names(&data);
    below.sort();
    assert_eq!(below, ["a", "b"]);
    let (a, b) = (c.path_fh(&["data", "a"]), c.path_fh(&["data", "b"]));
    let pseudo = c.path_fh(&["data"]);
    let fsids = [fsid_of(&c, a), fsid_of(&c, b), fsid_of(&c, pseudo)];
    assert!(fsids[0] != fsids[1] && fsids[0] != fsids[2] && fsids[1] != fsids[2], "{fsids:?}");
    // Pseudo directories are read-only directories.
    let attrs = c.seq(vec![putfh(pseudo), getattr(&[FATTR4_TYPE, FATTR4_MODE])]).attrs();
    let attrs = attrs.decode_attrs().expect("decode");
    assert_eq!((attrs.ftype, attrs.mode), (Some(NfsFtype4::Dir), Some(0o555)));
    let create = NfsArgOp::Create(CreateArgs {
        objtype: CreateType4::Dir,
        objname: Component4(b"new"),
        createattrs: mode_attrs(0o755),
    });
    assert_eq!(c.seq(vec![putfh(pseudo), create]).status(), err(NfsErr4::Rofs));
    let open = c.open_how(pseudo, "a", OpenFlag4::NoCreate, OPEN4_SHARE_ACCESS_READ, 0);
    assert_eq!(open.status(), err(NfsErr4::IsDir));
}

#[test]
fn pseudo_handles_stay_valid_and_pseudo_root_lists_export_roots_with_mounted_on_ids() {
    let server = server();
    let c = Client::new(&server, "mounted-on");
    c.mount();
    let root = c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::Getfh]).fh();
    assert_eq!(c.seq(vec![putfh(root), lookup("export")]).status(), OK, "a pseudo handle from GETFH is usable");
    let listing = c.seq(vec![putfh(root), readdir_op()]);
    let res = listing.res();
    let Some(NfsResOp::Readdir(Nfs4Result::Ok(ok))) = res.resarray.last() else { panic!("{res:?}") };
    let entry = ok.reply.entries.first().expect("an entry");
    let attrs = entry.attrs.decode_attrs().expect("decode");
    let export_attrs = c.seq(vec![putfh(c.export_fh()), getattr(&[FATTR4_FILEID, FATTR4_MOUNTED_ON_FILEID])]).attrs();
    let export_attrs = export_attrs.decode_attrs().expect("decode");
    assert_eq!(attrs.fileid, export_attrs.fileid, "the entry is the export's root");
    assert_eq!(attrs.mounted_on_fileid, export_attrs.mounted_on_fileid);
    assert_ne!(attrs.fileid, attrs.mounted_on_fileid);
}

#[test]
fn a_nested_export_is_crossed_from_its_parent_exports_root() {
    let server = server_with(vec![export("/a", mem()), export("/a/b", mem())]);
    let c = Client::new(&server, "nested");
    c.mount();
    let outer = c.path_fh(&["a"]);
    let inner = c.path_fh(&["a", "b"]);
    assert_ne!(fsid_of(&c, outer), fsid_of(&c, inner));
    assert_eq!(inner.as_bytes(), server.root_handle("/a/b").expect("root").as_bytes());
    let up = c.seq(vec![putfh(inner), NfsArgOp::Lookupp, NfsArgOp::Getfh]).fh();
    assert_eq!(up, outer, "LOOKUPP from the inner root leads to the outer one");
}

#[test]
fn an_export_refusing_the_client_is_not_there_for_it() {
    let mut hidden = export("/hidden", mem());
    hidden.clients = vec![IpNet { addr: "10.9.9.9".parse().expect("ip"), prefix_len: 32 }];
    let server = server_with(vec![export("/export", mem()), hidden]);
    let c = Client::new(&server, "hidden");
    c.mount();
    assert_eq!(names(&c.seq(vec![NfsArgOp::Putrootfh, readdir_op()])), ["export"]);
    assert_eq!(c.seq(vec![NfsArgOp::Putrootfh, lookup("hidden")]).status(), err(NfsErr4::NoEnt));
    let handle = server.root_handle("/hidden").expect("root");
    let fh = NfsFh4::new(handle.as_bytes()).expect("handle");
    assert_eq!(c.seq(vec![putfh(fh)]).status(), err(NfsErr4::Access), "its handles are refused");
}

#[test]
fn an_export_at_the_root_is_the_root() {
    let server = server_with(vec![export("/", mem())]);
    let c = Client::new(&server, "slash");
    c.mount();
    let root = c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::Getfh]).fh();
    assert_eq!(root.as_bytes(), server.root_handle("/").expect("root").as_bytes());
    let (_, file) = c.create(root, "top");
    assert_eq!(c.write(file, Stateid4::ANONYMOUS, 0, b"x").status(), OK);
}
