//! NFSv3 fields of a decoded call or reply, keyed as `testdata/golden/index.json`'s `tshark{}` keys.
//! Each walker visits the RFC 1813 structures in wire order, so `[all]` lists come out in the order
//! tshark lists them: every `fattr3` (`attr_*`), every `post_op_attr` and `pre_op_attr` discriminant
//! (`attributes_follow`), every file handle (`fh_length`: `nfs_fh3`, and `post_op_fh3` when present).

use nfs3_proto::{
    CreateHow3, DirOpArgs3, Fattr3, FileHandle3, MknodData3, Nfs3Call, Nfs3Reply, Nfs3Result, PostOpAttr, PostOpFh3,
    PreOpAttr, Sattr3, SetTime3, WccData,
};

use crate::golden_support::{hex_colon, text, Fields};

pub fn fh(f: &mut Fields, handle: &FileHandle3) {
    f.push("fh_length", handle.len() as u64);
}

fn post_op_fh(f: &mut Fields, handle: &PostOpFh3) {
    // tshark lists handle_follows as nfs.handle_follows, not attributes_follow: only the handle counts.
    if let Some(h) = handle {
        fh(f, h);
    }
}

fn fattr(f: &mut Fields, a: &Fattr3) {
    f.push("attr_type", a.ftype.as_u32());
    f.push("attr_mode", a.mode);
    f.push("attr_nlink", a.nlink);
    f.push("attr_uid", a.uid);
    f.push("attr_gid", a.gid);
    f.push("attr_size", a.size);
    f.push("attr_fileid", a.fileid);
}

pub fn post_op_attr(f: &mut Fields, attr: &PostOpAttr) {
    f.push("attributes_follow", u32::from(attr.is_some()));
    if let Some(a) = attr {
        fattr(f, a);
    }
}

fn pre_op_attr(f: &mut Fields, attr: &PreOpAttr) {
    f.push("attributes_follow", u32::from(attr.is_some()));
    if let Some(a) = attr {
        f.push("wcc_before_size", a.size);
    }
}

fn wcc(f: &mut Fields, data: &WccData) {
    pre_op_attr(f, &data.before);
    post_op_attr(f, &data.after);
}

fn sattr(f: &mut Fields, s: &Sattr3) {
    for set in [s.mode.is_some(), s.uid.is_some(), s.gid.is_some(), s.size.is_some()] {
        f.push("sattr_set_it", u32::from(set));
    }
    f.push("sattr_set_it", s.atime.how().as_u32());
    f.push("sattr_set_it", s.mtime.how().as_u32());
    if let Some(mode) = s.mode {
        f.first("sattr_mode", mode);
    }
    if let Some(uid) = s.uid {
        f.first("sattr_uid", uid);
    }
    if let Some(gid) = s.gid {
        f.first("sattr_gid", gid);
    }
    if let Some(size) = s.size {
        f.first("sattr_size", size);
    }
    for time in [s.atime, s.mtime] {
        if let SetTime3::SetToClientTime(t) = time {
            f.push("sattr_time_sec", t.seconds);
        }
    }
}

fn dirop(f: &mut Fields, d: &DirOpArgs3<'_>) {
    fh(f, &d.dir);
    f.push("name", text(d.name));
}

pub fn nfs3_call_fields(f: &mut Fields, call: &Nfs3Call<'_>) {
    use Nfs3Call::*;
    match call {
        Null => {}
        Getattr(a) => fh(f, &a.object),
        Setattr(a) => {
            fh(f, &a.object);
            sattr(f, &a.new_attributes);
            f.first("sattrguard_check", u32::from(a.guard.is_some()));
        }
        Lookup(a) => dirop(f, &a.what),
        Access(a) => {
            fh(f, &a.object);
            f.first("access", a.access);
        }
        Readlink(a) => fh(f, &a.symlink),
        Read(a) => {
            fh(f, &a.file);
            f.first("offset", a.offset);
            f.first("count", a.count);
        }
        Write(a) => {
            fh(f, &a.file);
            f.first("offset", a.offset);
            f.first("count", a.count);
            f.first("stable", a.stable.as_u32());
            f.first("data_length", a.data.len() as u64);
        }
        Create(a) => {
            dirop(f, &a.where_);
            f.first("createmode", a.how.mode().as_u32());
            match &a.how {
                CreateHow3::Unchecked(s) | CreateHow3::Guarded(s) => sattr(f, s),
                CreateHow3::Exclusive(v) => f.first("verifier", hex_colon(&v.0)),
            }
        }
        Mkdir(a) => {
            dirop(f, &a.where_);
            sattr(f, &a.attributes);
        }
        Symlink(a) => {
            dirop(f, &a.where_);
            sattr(f, &a.symlink.symlink_attributes);
            f.first("symlink_to", text(a.symlink.symlink_data));
        }
        Mknod(a) => {
            dirop(f, &a.where_);
            f.first("mknod_type", a.what.ftype().as_u32());
            match &a.what {
                MknodData3::Chr(d) | MknodData3::Blk(d) => {
                    sattr(f, &d.dev_attributes);
                    f.first("spec_major", d.spec.specdata1);
                    f.first("spec_minor", d.spec.specdata2);
                }
                MknodData3::Sock(s) | MknodData3::Fifo(s) => sattr(f, s),
                MknodData3::Reg | MknodData3::Dir | MknodData3::Lnk => {}
            }
        }
        Remove(a) => dirop(f, &a.object),
        Rmdir(a) => dirop(f, &a.object),
        Rename(a) => {
            dirop(f, &a.from);
            dirop(f, &a.to);
        }
        Link(a) => {
            fh(f, &a.file);
            dirop(f, &a.link);
        }
        Readdir(a) => {
            fh(f, &a.dir);
            f.first("cookie", a.cookie);
            f.first("verifier", hex_colon(&a.cookieverf.0));
            f.first("count", a.count);
        }
        Readdirplus(a) => {
            fh(f, &a.dir);
            f.first("cookie", a.cookie);
            f.first("verifier", hex_colon(&a.cookieverf.0));
            f.first("dircount", a.dircount);
            f.first("maxcount", a.maxcount);
        }
        Fsstat(a) => fh(f, &a.fsroot),
        Fsinfo(a) => fh(f, &a.fsroot),
        Pathconf(a) => fh(f, &a.object),
        Commit(a) => {
            fh(f, &a.file);
            f.first("offset", a.offset);
            f.first("count", a.count);
        }
    }
}

/// Walks a result's `resok` or `resfail` arm.
fn either<T, F>(
    f: &mut Fields,
    r: &Nfs3Result<T, F>,
    ok: impl FnOnce(&mut Fields, &T),
    fail: impl FnOnce(&mut Fields, &F),
) {
    match r {
        Nfs3Result::Ok(v) => ok(f, v),
        Nfs3Result::Fail(_, v) => fail(f, v),
    }
}

pub fn nfs3_reply_fields(f: &mut Fields, reply: &Nfs3Reply<'_>) {
    use Nfs3Reply::*;
    if !matches!(reply, Null) {
        f.first("status", reply.status().as_u32());
    }
    match reply {
        Null => {}
        Getattr(r) => either(f, r, |f, ok| fattr(f, &ok.obj_attributes), |_, _| {}),
        Setattr(r) => either(f, r, |f, ok| wcc(f, &ok.obj_wcc), |f, e| wcc(f, &e.obj_wcc)),
        Lookup(r) => either(
            f,
            r,
            |f, ok| {
                fh(f, &ok.object);
                post_op_attr(f, &ok.obj_attributes);
                post_op_attr(f, &ok.dir_attributes);
            },
            |f, e| post_op_attr(f, &e.dir_attributes),
        ),
        Access(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.obj_attributes);
                f.first("access_rights", ok.access);
            },
            |f, e| post_op_attr(f, &e.obj_attributes),
        ),
        Readlink(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.symlink_attributes);
                f.first("readlink_data", text(ok.data));
            },
            |f, e| post_op_attr(f, &e.symlink_attributes),
        ),
        Read(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.file_attributes);
                f.first("count", ok.count);
                f.first("eof", ok.eof);
                f.first("data_length", ok.data.len() as u64);
            },
            |f, e| post_op_attr(f, &e.file_attributes),
        ),
        Write(r) => either(
            f,
            r,
            |f, ok| {
                wcc(f, &ok.file_wcc);
                f.first("count", ok.count);
                f.first("committed", ok.committed.as_u32());
                f.first("verifier", hex_colon(&ok.verf.0));
            },
            |f, e| wcc(f, &e.file_wcc),
        ),
        Create(r) | Mkdir(r) | Symlink(r) | Mknod(r) => either(
            f,
            r,
            |f, ok| {
                post_op_fh(f, &ok.obj);
                post_op_attr(f, &ok.obj_attributes);
                wcc(f, &ok.dir_wcc);
            },
            |f, e| wcc(f, &e.dir_wcc),
        ),
        Remove(r) | Rmdir(r) => either(f, r, |f, ok| wcc(f, &ok.dir_wcc), |f, e| wcc(f, &e.dir_wcc)),
        Rename(r) => either(
            f,
            r,
            |f, ok| {
                wcc(f, &ok.fromdir_wcc);
                wcc(f, &ok.todir_wcc);
            },
            |f, e| {
                wcc(f, &e.fromdir_wcc);
                wcc(f, &e.todir_wcc);
            },
        ),
        Link(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.file_attributes);
                wcc(f, &ok.linkdir_wcc);
            },
            |f, e| {
                post_op_attr(f, &e.file_attributes);
                wcc(f, &e.linkdir_wcc);
            },
        ),
        Readdir(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.dir_attributes);
                f.first("verifier", hex_colon(&ok.cookieverf.0));
                for e in &ok.reply.entries {
                    f.push("entry_fileids", e.fileid);
                    f.push("entry_names", text(e.name));
                    f.push("entry_cookies", e.cookie);
                }
                f.first("dir_eof", ok.reply.eof);
            },
            |f, e| post_op_attr(f, &e.dir_attributes),
        ),
        Readdirplus(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.dir_attributes);
                f.first("verifier", hex_colon(&ok.cookieverf.0));
                for e in &ok.reply.entries {
                    f.push("entryplus_fileids", e.fileid);
                    f.push("entryplus_names", text(e.name));
                    f.push("entryplus_cookies", e.cookie);
                    post_op_attr(f, &e.name_attributes);
                    post_op_fh(f, &e.name_handle);
                }
                f.first("dir_eof", ok.reply.eof);
            },
            |f, e| post_op_attr(f, &e.dir_attributes),
        ),
        Fsstat(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.obj_attributes);
                f.first("fsstat_tbytes", ok.tbytes);
                f.first("fsstat_fbytes", ok.fbytes);
                f.first("fsstat_abytes", ok.abytes);
                f.first("fsstat_tfiles", ok.tfiles);
                f.first("fsstat_ffiles", ok.ffiles);
                f.first("fsstat_afiles", ok.afiles);
                f.first("fsstat_invarsec", ok.invarsec);
            },
            |f, e| post_op_attr(f, &e.obj_attributes),
        ),
        Fsinfo(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.obj_attributes);
                f.first("fsinfo_rtmax", ok.rtmax);
                f.first("fsinfo_rtpref", ok.rtpref);
                f.first("fsinfo_rtmult", ok.rtmult);
                f.first("fsinfo_wtmax", ok.wtmax);
                f.first("fsinfo_wtpref", ok.wtpref);
                f.first("fsinfo_wtmult", ok.wtmult);
                f.first("fsinfo_dtpref", ok.dtpref);
                f.first("fsinfo_maxfilesize", ok.maxfilesize);
                f.first("fsinfo_properties", ok.properties);
            },
            |f, e| post_op_attr(f, &e.obj_attributes),
        ),
        Pathconf(r) => either(
            f,
            r,
            |f, ok| {
                post_op_attr(f, &ok.obj_attributes);
                f.first("pathconf_linkmax", ok.linkmax);
                f.first("pathconf_name_max", ok.name_max);
                f.first("pathconf_no_trunc", ok.no_trunc);
                f.first("pathconf_chown_restricted", ok.chown_restricted);
                f.first("pathconf_case_insensitive", ok.case_insensitive);
                f.first("pathconf_case_preserving", ok.case_preserving);
            },
            |f, e| post_op_attr(f, &e.obj_attributes),
        ),
        Commit(r) => either(
            f,
            r,
            |f, ok| {
                wcc(f, &ok.file_wcc);
                f.first("verifier", hex_colon(&ok.verf.0));
            },
            |f, e| wcc(f, &e.file_wcc),
        ),
    }
}
