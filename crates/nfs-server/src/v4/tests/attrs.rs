//! Attributes: GETATTR of what is supported only, owners as numeric strings, SETATTR with its rules
//! (BADOWNER, INVAL for read-only attributes, the size through a stateid), VERIFY and NVERIFY, ACCESS.

use nfs4_proto::attr::*;
use nfs4_proto::*;

use super::*;

fn setattr(stateid: Stateid4, attrs: Fattr4<'_>) -> NfsArgOp<'static> {
    NfsArgOp::Setattr(SetattrArgs { stateid, obj_attributes: attrs.to_raw() })
}

#[test]
fn getattr_answers_the_supported_attributes_asked_for_and_leaves_out_the_others() {
    let server = server();
    let c = Client::new(&server, "getattr");
    c.mount();
    let (_, file) = c.create(c.export_fh(), "f");
    // time_backup (49) and acl (12) are not supported: left out, no error.
    let answer = c.seq(vec![putfh(file), getattr(&[FATTR4_SIZE, 12, 49, FATTR4_OWNER, FATTR4_OWNER_GROUP])]);
    assert_eq!(answer.status(), OK);
    let raw = answer.attrs();
    assert_eq!(raw.attrmask, Bitmap4::from_bits([FATTR4_SIZE, FATTR4_OWNER, FATTR4_OWNER_GROUP]));
    let attrs = raw.decode_attrs().expect("decode");
    assert_eq!((attrs.owner.map(|o| o.0.to_vec()), attrs.size), (Some(b"0".to_vec()), Some(0)));
    let write_only = c.seq(vec![putfh(file), getattr(&[FATTR4_SIZE, FATTR4_TIME_MODIFY_SET])]);
    assert_eq!(write_only.status(), err(NfsErr4::Inval), "write-only attributes cannot be read");
}

#[test]
fn setattr_takes_numeric_owners_and_refuses_names_and_read_only_attributes() {
    let server = server();
    let c = Client::new(&server, "setattr");
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "f");
    let chown = Fattr4 { owner: Some(Utf8Str(b"1000")), owner_group: Some(Utf8Str(b"100")), ..Fattr4::default() };
    let answer = c.seq(vec![putfh(file), setattr(Stateid4::ANONYMOUS, chown.clone()), getattr(&[FATTR4_OWNER])]);
    let res = answer.res();
    let NfsResOp::Setattr(set) = &res.resarray[2] else { panic!("{res:?}") };
    assert_eq!(set.attrsset, chown.mask());
    assert_eq!(answer.attrs().decode_attrs().expect("decode").owner, Some(Utf8Str(b"1000")));
    let named = Fattr4 { owner: Some(Utf8Str(b"alice@example.org")), ..Fattr4::default() };
    assert_eq!(c.seq(vec![putfh(file), setattr(Stateid4::ANONYMOUS, named)]).status(), err(NfsErr4::BadOwner));
    let read_only = Fattr4 { fileid: Some(5), ..Fattr4::default() };
    assert_eq!(c.seq(vec![putfh(file), setattr(Stateid4::ANONYMOUS, read_only)]).status(), err(NfsErr4::Inval));
    let size = Fattr4 { size: Some(3), ..Fattr4::default() };
    assert_eq!(c.seq(vec![putfh(file), setattr(stateid, size)]).status(), OK);
    let attrs = c.seq(vec![putfh(file), getattr(&[FATTR4_SIZE])]).attrs();
    assert_eq!(attrs.decode_attrs().expect("decode").size, Some(3));
}

#[test]
fn setattr_of_the_size_follows_the_open_mode_and_of_the_pseudo_root_is_rofs() {
    let server = server();
    let c = Client::new(&server, "mode");
    c.mount();
    let dir = c.export_fh();
    c.create(dir, "ro");
    let ro = c.open_how(dir, "ro2", OpenFlag4::Create(CreateHow4::Guarded(mode_attrs(0o644))), 1, 0);
    assert_eq!(ro.status(), OK);
    let size = Fattr4 { size: Some(0), ..Fattr4::default() };
    let answer = c.seq(vec![putfh(ro.fh()), setattr(ro.open_stateid(), size.clone())]);
    assert_eq!(answer.status(), err(NfsErr4::OpenMode));
    let root = c.seq(vec![
        NfsArgOp::Putrootfh,
        setattr(Stateid4::ANONYMOUS, Fattr4 { mode: Some(0o777), ..Fattr4::default() }),
    ]);
    assert_eq!(root.status(), err(NfsErr4::Rofs));
}

#[test]
fn an_unprivileged_user_may_not_chmod_what_it_does_not_own() {
    let server = server();
    let root = Client::new(&server, "root");
    root.mount();
    let (_, file) = root.create(root.export_fh(), "roots");
    let user = Client::new(&server, "user").user(1000, 1000);
    user.mount();
    let chmod = Fattr4 { mode: Some(0o777), ..Fattr4::default() };
    assert_eq!(user.seq(vec![putfh(file), setattr(Stateid4::ANONYMOUS, chmod)]).status(), err(NfsErr4::Perm));
}

#[test]
fn verify_and_nverify_compare_the_attributes() {
    let server = server();
    let c = Client::new(&server, "verify");
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "v");
    assert_eq!(c.write(file, stateid, 0, b"12345").status(), OK);
    let verify = |size: u64, negate: bool| {
        let obj_attributes = Fattr4 { size: Some(size), ..Fattr4::default() }.to_raw();
        let op = if negate {
            NfsArgOp::Nverify(NverifyArgs { obj_attributes })
        } else {
            NfsArgOp::Verify(VerifyArgs { obj_attributes })
        };
        c.seq(vec![putfh(file), op]).status()
    };
    assert_eq!(verify(5, false), OK);
    assert_eq!(verify(4, false), err(NfsErr4::NotSame));
    assert_eq!(verify(4, true), OK);
    assert_eq!(verify(5, true), err(NfsErr4::Same));
    let unsupported = Fattr4 { hidden: Some(false), ..Fattr4::default() }.to_raw();
    let answer = c.seq(vec![putfh(file), NfsArgOp::Verify(VerifyArgs { obj_attributes: unsupported })]);
    assert_eq!(answer.status(), err(NfsErr4::AttrNotSupp));
}

#[test]
fn access_grants_by_mode_bits_and_never_modification_in_the_pseudo_root() {
    let server = server();
    let c = Client::new(&server, "access").user(1000, 1000);
    c.mount();
    let all = ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_MODIFY | ACCESS4_EXTEND | ACCESS4_DELETE | ACCESS4_EXECUTE;
    let access = |ops: Vec<NfsArgOp<'static>>| {
        let answer = c.seq(ops);
        let res = answer.res();
        match res.resarray.last() {
            Some(NfsResOp::Access(Nfs4Result::Ok(ok))) => (ok.supported, ok.access),
            other => panic!("{other:?}"),
        }
    };
    let (supported, granted) =
        access(vec![NfsArgOp::Putrootfh, NfsArgOp::Access(AccessArgs { access: all | ACCESS4_XAREAD })]);
    assert_eq!(supported, all, "extended-attribute bits are not checked");
    assert_eq!(granted, ACCESS4_READ | ACCESS4_LOOKUP);
    let dir = c.export_fh();
    let (_, granted) = access(vec![putfh(dir), NfsArgOp::Access(AccessArgs { access: all })]);
    assert_eq!(granted & ACCESS4_MODIFY, ACCESS4_MODIFY, "the mem: root is mode 0777");
}
