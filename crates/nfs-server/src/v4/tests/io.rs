//! Data through opens: OPEN (create), WRITE, COMMIT, READ with its payload and eof, CLOSE; the stateid
//! rules around them; SEEK, ALLOCATE and DEALLOCATE of NFSv4.2.

use nfs4_proto::*;

use super::*;

#[test]
fn open_write_commit_read_close_round_trips_the_data() {
    let server = server();
    let c = Client::new(&server, "io");
    c.mount();
    let dir = c.export_fh();
    let (stateid, file) = c.create(dir, "data");
    let payload: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let written = c.seq(vec![
        putfh(file),
        NfsArgOp::Write(WriteArgs { stateid, offset: 0, stable: StableHow4::Unstable, data: &payload }),
        NfsArgOp::Commit(CommitArgs { offset: 0, count: 0 }),
    ]);
    let res = written.res();
    let [_, _, NfsResOp::Write(Nfs4Result::Ok(w)), NfsResOp::Commit(Nfs4Result::Ok(commit))] = &res.resarray[..] else {
        panic!("{:?}", res.resarray)
    };
    assert_eq!(w.count, payload.len() as u32);
    assert_eq!(w.writeverf, commit.writeverf, "one verifier while the server runs");
    assert_eq!(w.writeverf.0, server.write_verifier("/export").expect("verifier").0);
    let (data, eof) = c.read(file, stateid, 0, 20_000).expect("read");
    assert_eq!((data, eof), (payload.clone(), true));
    let (tail, eof) = c.read(file, stateid, 9_990, 5).expect("read");
    assert_eq!((tail.as_slice(), eof), (&payload[9_990..9_995], false));
    let closed = c.close(file, stateid);
    let res = closed.res();
    let Some(NfsResOp::Close(Nfs4Result::Ok(ok))) = res.resarray.last() else { panic!("{:?}", res.resarray) };
    assert_eq!(ok.open_stateid, Stateid4::INVALID, "RFC 8881 §18.2.4");
    assert_eq!(c.close(file, stateid).status(), err(NfsErr4::BadStateId), "closed is closed");
}

#[test]
fn read_data_is_a_payload_of_the_reply_even_when_empty() {
    let server = server();
    let c = Client::new(&server, "payload");
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "p");
    assert_eq!(c.write(file, stateid, 0, b"hello").status(), OK);
    let answer = c.seq(vec![
        putfh(file),
        NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 5 }),
        NfsArgOp::Read(ReadArgs { stateid, offset: 5, count: 5 }),
    ]);
    assert_eq!(answer.status(), OK);
    let payloads: Vec<Vec<u8>> = answer.reply.payloads().iter().map(|p| p.data.to_vec()).collect();
    assert_eq!(payloads, [b"hello".to_vec(), Vec::new()], "one payload per READ, in order");
}

#[test]
fn the_current_stateid_stands_for_the_open_that_set_it() {
    let server = server();
    let c = Client::new(&server, "current");
    c.mount();
    let dir = c.export_fh();
    let owner = StateOwner4 { clientid: c.clientid.get(), owner: Opaque4(b"o") };
    let answer = c.seq(vec![
        putfh(dir),
        NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_BOTH,
            share_deny: OPEN4_SHARE_DENY_NONE,
            owner,
            openhow: OpenFlag4::Create(CreateHow4::Unchecked(mode_attrs(0o600))),
            claim: OpenClaim4::Null(Component4(b"cur")),
        }),
        NfsArgOp::Write(WriteArgs { stateid: Stateid4::CURRENT, offset: 0, stable: StableHow4::FileSync, data: b"x" }),
        NfsArgOp::Close(CloseArgs { seqid: 0, open_stateid: Stateid4::CURRENT }),
        NfsArgOp::Getfh,
    ]);
    assert_eq!(answer.statuses(), [OK, OK, OK, OK, OK, OK]);
    let lost = c.seq(vec![
        putfh(answer.fh()),
        NfsArgOp::Write(WriteArgs { stateid: Stateid4::CURRENT, offset: 0, stable: StableHow4::FileSync, data: b"x" }),
    ]);
    assert_eq!(lost.statuses(), [OK, OK, err(NfsErr4::BadStateId)], "PUTFH leaves no current stateid");
}

#[test]
fn a_read_only_open_cannot_write_and_the_anonymous_stateid_follows_permissions() {
    let server = server();
    let c = Client::new(&server, "modes");
    c.mount();
    let dir = c.export_fh();
    let (rw, file) = c.create(dir, "f");
    assert_eq!(c.write(file, rw, 0, b"abc").status(), OK);
    let ro = c.open_how(dir, "f", OpenFlag4::NoCreate, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE);
    assert_eq!(ro.status(), OK);
    // One open-owner, one stateid: the read open joins the read-write one.
    assert_eq!(ro.open_stateid().other, rw.other);
    let user = Client::new(&server, "user").user(1000, 1000);
    user.mount();
    let anon = user.write(file, Stateid4::ANONYMOUS, 0, b"no");
    assert_eq!(anon.status(), err(NfsErr4::Access), "mode 0644 owned by root");
    assert_eq!(user.read(file, Stateid4::ANONYMOUS, 0, 3), Ok((b"abc".to_vec(), true)));
}

#[test]
fn write_and_read_through_a_stateid_of_another_client_are_bad_stateid() {
    let server = server();
    let a = Client::new(&server, "a");
    a.mount();
    let b = Client::new(&server, "b");
    b.mount();
    let (stateid, file) = a.create(a.export_fh(), "mine");
    assert_eq!(b.write(file, stateid, 0, b"x").status(), err(NfsErr4::BadStateId));
    assert_eq!(b.read(file, stateid, 0, 1), Err(err(NfsErr4::BadStateId)));
}

#[test]
fn read_and_write_of_a_directory_are_isdir() {
    let server = server();
    let c = Client::new(&server, "dirio");
    c.mount();
    let dir = c.export_fh();
    assert_eq!(c.read(dir, Stateid4::ANONYMOUS, 0, 1), Err(err(NfsErr4::IsDir)));
    assert_eq!(c.write(dir, Stateid4::ANONYMOUS, 0, b"x").status(), err(NfsErr4::IsDir));
}

#[test]
fn seek_finds_data_and_the_hole_at_the_end_and_nxio_past_it() {
    let server = server();
    let c = Client::new(&server, "seek").minor(2);
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "s");
    assert_eq!(c.write(file, stateid, 0, &[1u8; 100]).status(), OK);
    let seek = |offset, what| {
        let answer = c.seq(vec![putfh(file), NfsArgOp::Seek(SeekArgs { stateid, offset, what })]);
        let res = answer.res();
        match res.resarray.last() {
            Some(NfsResOp::Seek(Nfs4Result::Ok(ok))) => Ok((ok.offset, ok.eof)),
            Some(other) => Err(other.status()),
            None => Err(res.status),
        }
    };
    assert_eq!(seek(10, DataContent4::Data), Ok((10, false)));
    assert_eq!(seek(10, DataContent4::Hole), Ok((100, true)));
    assert_eq!(seek(100, DataContent4::Data), Err(err(NfsErr4::Nxio)));
}

#[test]
fn deallocate_punches_a_hole_that_reads_as_zeros() {
    let server = server();
    let c = Client::new(&server, "punch").minor(2);
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "h");
    assert_eq!(c.write(file, stateid, 0, &[7u8; 3 * 4096]).status(), OK);
    let punch = c.seq(vec![putfh(file), NfsArgOp::Deallocate(AllocateArgs { stateid, offset: 4096, length: 4096 })]);
    assert_eq!(punch.status(), OK, "{:?}", punch.statuses());
    let (data, _) = c.read(file, stateid, 0, 3 * 4096).expect("read");
    assert_eq!(data.len(), 3 * 4096, "the size stays");
    assert!(data[..4096].iter().all(|&b| b == 7) && data[8192..].iter().all(|&b| b == 7));
    assert!(data[4096..8192].iter().all(|&b| b == 0));
    let allocate = c.seq(vec![putfh(file), NfsArgOp::Allocate(AllocateArgs { stateid, offset: 0, length: 20_000 })]);
    assert_eq!(allocate.status(), OK, "{:?}", allocate.statuses());
    let (data, _) = c.read(file, stateid, 0, 30_000).expect("read");
    assert_eq!(data.len(), 20_000, "ALLOCATE past the end extends the file");
}

#[test]
fn a_dir_export_punches_holes_and_seeks_data_with_the_file_system() {
    let dirs = Dirs::new();
    let server = dirs.server();
    let c = Client::new(&server, "dir-punch").minor(2);
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "h");
    for i in 0..3 {
        assert_eq!(c.write(file, stateid, i * 65536, &[7u8; 65536]).status(), OK);
    }
    let punch = c.seq(vec![putfh(file), NfsArgOp::Deallocate(AllocateArgs { stateid, offset: 65536, length: 65536 })]);
    assert_eq!(punch.status(), OK, "{:?}", punch.statuses());
    // Reads of MAX_IO (64 KiB) each.
    let pages: Vec<Vec<u8>> = (0..3).map(|i| c.read(file, stateid, i * 65536, 65536).expect("read").0).collect();
    assert!(pages.iter().all(|p| p.len() == 65536), "the size stays");
    assert!(pages[0].iter().chain(&pages[2]).all(|&b| b == 7) && pages[1].iter().all(|&b| b == 0));
    let seek = c.seq(vec![putfh(file), NfsArgOp::Seek(SeekArgs { stateid, offset: 0, what: DataContent4::Data })]);
    let res = seek.res();
    let Some(NfsResOp::Seek(Nfs4Result::Ok(ok))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!(ok.offset, 0);
}
