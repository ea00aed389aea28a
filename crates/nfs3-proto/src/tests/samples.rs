//! One or more sample values for every procedure's arguments and both arms of every result.

use crate::mount::{DirPath, ExportNode, Exports, MntName, MountBody, MountCall, MountErr3, MountList, MountReply};
use crate::mount::{MountRes3, MountRes3Ok};
use crate::*;

pub fn fh(seed: u8, len: usize) -> FileHandle3 {
    let bytes: Vec<u8> = (0..len).map(|i| seed.wrapping_add(i as u8)).collect();
    FileHandle3::new(&bytes).unwrap_or_default()
}

pub fn time(s: u32) -> NfsTime3 {
    NfsTime3 { seconds: s, nseconds: 999_999_999 }
}

pub fn fattr(ftype: Ftype3) -> Fattr3 {
    Fattr3 {
        ftype,
        mode: 0o100644,
        nlink: 1,
        uid: 1000,
        gid: 100,
        size: 0x1_0000_0001,
        used: 8192,
        rdev: SpecData3 { specdata1: 8, specdata2: 1 },
        fsid: 0xdead_beef_0000_0001,
        fileid: 42,
        atime: time(1),
        mtime: time(2),
        ctime: time(3),
    }
}

pub fn wcc() -> WccData {
    WccData { before: Some(WccAttr { size: 10, mtime: time(4), ctime: time(5) }), after: Some(fattr(Ftype3::Dir)) }
}

pub fn sattr_all() -> Sattr3 {
    Sattr3 {
        mode: Some(0o755),
        uid: Some(0),
        gid: Some(u32::MAX),
        size: Some(u64::MAX),
        atime: SetTime3::SetToServerTime,
        mtime: SetTime3::SetToClientTime(time(6)),
    }
}

pub fn dirop(name: &'static [u8]) -> DirOpArgs3<'static> {
    DirOpArgs3 { dir: fh(1, 28), name }
}

pub static WRITE_DATA: [u8; 13] = *b"hello, world!";

/// At least one call per procedure, exercising every union arm of the arguments.
pub fn calls() -> Vec<Nfs3Call<'static>> {
    vec![
        Nfs3Call::Null,
        Nfs3Call::Getattr(GetattrArgs { object: fh(2, 64) }),
        Nfs3Call::Setattr(SetattrArgs { object: fh(2, 8), new_attributes: sattr_all(), guard: Some(time(7)) }),
        Nfs3Call::Setattr(SetattrArgs { object: fh(2, 0), new_attributes: Sattr3::default(), guard: None }),
        Nfs3Call::Lookup(LookupArgs { what: dirop(b"file.txt") }),
        Nfs3Call::Lookup(LookupArgs { what: dirop(b"") }),
        Nfs3Call::Access(AccessArgs { object: fh(3, 32), access: ACCESS3_READ | ACCESS3_EXECUTE }),
        Nfs3Call::Readlink(ReadlinkArgs { symlink: fh(4, 16) }),
        Nfs3Call::Read(ReadArgs { file: fh(5, 20), offset: 1 << 40, count: 1 << 20 }),
        Nfs3Call::Write(WriteArgs::new(fh(6, 20), 4096, StableHow::Unstable, &WRITE_DATA)),
        Nfs3Call::Write(WriteArgs::new(fh(6, 20), 0, StableHow::DataSync, b"")),
        Nfs3Call::Write(WriteArgs { file: fh(6, 20), offset: 0, count: 9, stable: StableHow::FileSync, data: b"1234" }),
        Nfs3Call::Create(CreateArgs { where_: dirop(b"new"), how: CreateHow3::Unchecked(sattr_all()) }),
        Nfs3Call::Create(CreateArgs { where_: dirop(b"new2"), how: CreateHow3::Guarded(Sattr3::default()) }),
        Nfs3Call::Create(CreateArgs {
            where_: dirop(b"excl"),
            how: CreateHow3::Exclusive(CreateVerf3([1, 2, 3, 4, 5, 6, 7, 8])),
        }),
        Nfs3Call::Mkdir(MkdirArgs { where_: dirop(b"subdir"), attributes: sattr_all() }),
        Nfs3Call::Symlink(SymlinkArgs {
            where_: dirop(b"link"),
            symlink: SymlinkData3 { symlink_attributes: Sattr3::default(), symlink_data: b"../target/x" },
        }),
        Nfs3Call::Mknod(MknodArgs {
            where_: dirop(b"sda"),
            what: MknodData3::Blk(DeviceData3 {
                dev_attributes: sattr_all(),
                spec: SpecData3 { specdata1: 8, specdata2: 0 },
            }),
        }),
        Nfs3Call::Mknod(MknodArgs { where_: dirop(b"tty"), what: MknodData3::Chr(DeviceData3::default()) }),
        Nfs3Call::Mknod(MknodArgs { where_: dirop(b"sock"), what: MknodData3::Sock(sattr_all()) }),
        Nfs3Call::Mknod(MknodArgs { where_: dirop(b"fifo"), what: MknodData3::Fifo(Sattr3::default()) }),
        Nfs3Call::Mknod(MknodArgs { where_: dirop(b"reg"), what: MknodData3::Reg }),
        Nfs3Call::Mknod(MknodArgs { where_: dirop(b"dir"), what: MknodData3::Dir }),
        Nfs3Call::Mknod(MknodArgs { where_: dirop(b"lnk"), what: MknodData3::Lnk }),
        Nfs3Call::Remove(RemoveArgs { object: dirop(b"gone") }),
        Nfs3Call::Rmdir(RmdirArgs { object: dirop(b"gone.d") }),
        Nfs3Call::Rename(RenameArgs { from: dirop(b"a"), to: DirOpArgs3 { dir: fh(9, 12), name: b"b\xff\x00" } }),
        Nfs3Call::Link(LinkArgs { file: fh(10, 8), link: dirop(b"hard") }),
        Nfs3Call::Readdir(ReaddirArgs { dir: fh(11, 8), cookie: 0, cookieverf: CookieVerf3::default(), count: 4096 }),
        Nfs3Call::Readdirplus(ReaddirplusArgs {
            dir: fh(12, 8),
            cookie: 77,
            cookieverf: CookieVerf3([9; 8]),
            dircount: 8192,
            maxcount: 32768,
        }),
        Nfs3Call::Fsstat(FsstatArgs { fsroot: fh(13, 8) }),
        Nfs3Call::Fsinfo(FsinfoArgs { fsroot: fh(14, 8) }),
        Nfs3Call::Pathconf(PathconfArgs { object: fh(15, 8) }),
        Nfs3Call::Commit(CommitArgs { file: fh(16, 8), offset: 0, count: 0 }),
    ]
}

pub static READ_DATA: [u8; 7] = *b"payload";

/// The success and the failure arm of every procedure's result (NULL has one, void).
pub fn replies() -> Vec<Nfs3Reply<'static>> {
    use Nfs3Result::{Fail, Ok};
    let attr = Some(fattr(Ftype3::Reg));
    vec![
        Nfs3Reply::Null,
        Nfs3Reply::Getattr(Ok(GetattrResOk { obj_attributes: fattr(Ftype3::Lnk) })),
        Nfs3Reply::Getattr(Fail(NfsErr3::Stale, Void)),
        Nfs3Reply::Setattr(Ok(SetattrResOk { obj_wcc: wcc() })),
        Nfs3Reply::Setattr(Fail(NfsErr3::NotSync, SetattrResFail { obj_wcc: WccData::default() })),
        Nfs3Reply::Lookup(Ok(LookupResOk { object: fh(20, 64), obj_attributes: attr, dir_attributes: None })),
        Nfs3Reply::Lookup(Fail(NfsErr3::NoEnt, LookupResFail { dir_attributes: attr })),
        Nfs3Reply::Access(Ok(AccessResOk { obj_attributes: attr, access: ACCESS3_MODIFY | ACCESS3_EXTEND })),
        Nfs3Reply::Access(Fail(NfsErr3::Acces, AccessResFail { obj_attributes: None })),
        Nfs3Reply::Readlink(Ok(ReadlinkResOk { symlink_attributes: attr, data: b"/a/b/c" })),
        Nfs3Reply::Readlink(Fail(NfsErr3::Inval, ReadlinkResFail { symlink_attributes: attr })),
        Nfs3Reply::Read(Ok(ReadResOk::new(attr, true, &READ_DATA))),
        Nfs3Reply::Read(Ok(ReadResOk::new(None, false, b""))),
        Nfs3Reply::Read(Fail(NfsErr3::Io, ReadResFail { file_attributes: attr })),
        Nfs3Reply::Write(Ok(WriteResOk {
            file_wcc: wcc(),
            count: 13,
            committed: StableHow::FileSync,
            verf: WriteVerf3([0xa5; 8]),
        })),
        Nfs3Reply::Write(Fail(NfsErr3::NoSpc, WriteResFail { file_wcc: wcc() })),
        Nfs3Reply::Create(Ok(CreateResOk { obj: Some(fh(21, 32)), obj_attributes: attr, dir_wcc: wcc() })),
        Nfs3Reply::Create(Fail(NfsErr3::Exist, CreateResFail { dir_wcc: wcc() })),
        Nfs3Reply::Mkdir(Ok(CreateResOk { obj: None, obj_attributes: None, dir_wcc: WccData::default() })),
        Nfs3Reply::Mkdir(Fail(NfsErr3::Dquot, CreateResFail::default())),
        Nfs3Reply::Symlink(Ok(CreateResOk { obj: Some(fh(22, 4)), obj_attributes: None, dir_wcc: wcc() })),
        Nfs3Reply::Symlink(Fail(NfsErr3::NotSupp, CreateResFail { dir_wcc: wcc() })),
        Nfs3Reply::Mknod(Ok(CreateResOk { obj: Some(fh(23, 4)), obj_attributes: attr, dir_wcc: wcc() })),
        Nfs3Reply::Mknod(Fail(NfsErr3::BadType, CreateResFail { dir_wcc: wcc() })),
        Nfs3Reply::Remove(Ok(RemoveResOk { dir_wcc: wcc() })),
        Nfs3Reply::Remove(Fail(NfsErr3::IsDir, RemoveResFail { dir_wcc: wcc() })),
        Nfs3Reply::Rmdir(Ok(RemoveResOk { dir_wcc: wcc() })),
        Nfs3Reply::Rmdir(Fail(NfsErr3::NotEmpty, RemoveResFail { dir_wcc: wcc() })),
        Nfs3Reply::Rename(Ok(RenameResOk { fromdir_wcc: wcc(), todir_wcc: WccData::default() })),
        Nfs3Reply::Rename(Fail(NfsErr3::Xdev, RenameResFail { fromdir_wcc: WccData::default(), todir_wcc: wcc() })),
        Nfs3Reply::Link(Ok(LinkResOk { file_attributes: attr, linkdir_wcc: wcc() })),
        Nfs3Reply::Link(Fail(NfsErr3::Mlink, LinkResFail { file_attributes: None, linkdir_wcc: wcc() })),
        Nfs3Reply::Readdir(Ok(ReaddirResOk {
            dir_attributes: attr,
            cookieverf: CookieVerf3([3; 8]),
            reply: DirList3 {
                entries: vec![
                    Entry3 { fileid: 1, name: b".", cookie: 1 },
                    Entry3 { fileid: 2, name: b"..", cookie: 2 },
                    Entry3 { fileid: 3, name: b"hello.txt", cookie: u64::MAX },
                ],
                eof: true,
            },
        })),
        Nfs3Reply::Readdir(Ok(ReaddirResOk {
            dir_attributes: None,
            cookieverf: CookieVerf3::default(),
            reply: DirList3 { entries: vec![], eof: false },
        })),
        Nfs3Reply::Readdir(Fail(NfsErr3::BadCookie, ReaddirResFail { dir_attributes: attr })),
        Nfs3Reply::Readdirplus(Ok(ReaddirplusResOk {
            dir_attributes: attr,
            cookieverf: CookieVerf3([4; 8]),
            reply: DirListPlus3 {
                entries: vec![
                    EntryPlus3 {
                        fileid: 7,
                        name: b"a",
                        cookie: 1,
                        name_attributes: attr,
                        name_handle: Some(fh(30, 8)),
                    },
                    EntryPlus3 { fileid: 8, name: b"bb", cookie: 2, name_attributes: None, name_handle: None },
                ],
                eof: true,
            },
        })),
        Nfs3Reply::Readdirplus(Fail(NfsErr3::TooSmall, ReaddirplusResFail { dir_attributes: None })),
        Nfs3Reply::Fsstat(Ok(FsstatResOk {
            obj_attributes: attr,
            tbytes: 1 << 40,
            fbytes: 1 << 39,
            abytes: 1 << 38,
            tfiles: 1000,
            ffiles: 900,
            afiles: 800,
            invarsec: 0,
        })),
        Nfs3Reply::Fsstat(Fail(NfsErr3::ServerFault, FsstatResFail { obj_attributes: None })),
        Nfs3Reply::Fsinfo(Ok(FsinfoResOk {
            obj_attributes: attr,
            rtmax: 1 << 20,
            rtpref: 1 << 20,
            rtmult: 4096,
            wtmax: 1 << 20,
            wtpref: 1 << 20,
            wtmult: 4096,
            dtpref: 65536,
            maxfilesize: u64::MAX,
            time_delta: NfsTime3 { seconds: 0, nseconds: 1 },
            properties: FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME,
        })),
        Nfs3Reply::Fsinfo(Fail(NfsErr3::BadHandle, FsinfoResFail { obj_attributes: attr })),
        Nfs3Reply::Pathconf(Ok(PathconfResOk {
            obj_attributes: attr,
            linkmax: 32000,
            name_max: 255,
            no_trunc: true,
            chown_restricted: true,
            case_insensitive: false,
            case_preserving: true,
        })),
        Nfs3Reply::Pathconf(Fail(NfsErr3::Jukebox, PathconfResFail { obj_attributes: None })),
        Nfs3Reply::Commit(Ok(CommitResOk { file_wcc: wcc(), verf: WriteVerf3([7; 8]) })),
        Nfs3Reply::Commit(Fail(NfsErr3::Io, CommitResFail { file_wcc: wcc() })),
    ]
}

pub fn mount_calls() -> Vec<MountCall<'static>> {
    vec![
        MountCall::Null,
        MountCall::Mnt(DirPath(b"/export/ram")),
        MountCall::Dump,
        MountCall::Umnt(DirPath(b"/export/ram")),
        MountCall::Umntall,
        MountCall::Export,
    ]
}

pub fn mount_replies() -> Vec<MountReply<'static>> {
    vec![
        MountReply::Null,
        MountReply::Mnt(MountRes3::Ok(MountRes3Ok { fhandle: fh(40, 28), auth_flavors: vec![1, 0, 390004] })),
        MountReply::Mnt(MountRes3::Ok(MountRes3Ok { fhandle: fh(40, 64), auth_flavors: vec![] })),
        MountReply::Mnt(MountRes3::Fail(MountErr3::Acces)),
        MountReply::Dump(MountList(vec![
            MountBody { ml_hostname: MntName(b"client1"), ml_directory: DirPath(b"/export") },
            MountBody { ml_hostname: MntName(b"10.0.0.2"), ml_directory: DirPath(b"/") },
        ])),
        MountReply::Dump(MountList::default()),
        MountReply::Umnt,
        MountReply::Umntall,
        MountReply::Export(Exports(vec![
            ExportNode { ex_dir: DirPath(b"/export"), ex_groups: vec![MntName(b"*")] },
            ExportNode { ex_dir: DirPath(b"/srv"), ex_groups: vec![MntName(b"lab"), MntName(b"10.0.0.0/8")] },
            ExportNode { ex_dir: DirPath(b"/private"), ex_groups: vec![] },
        ])),
        MountReply::Export(Exports::default()),
    ]
}
