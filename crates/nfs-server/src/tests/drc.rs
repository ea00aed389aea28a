//! The duplicate request cache seen from the wire: retransmissions (same xid, same arguments) of
//! non-idempotent calls get the original reply, without executing again.

use std::sync::atomic::Ordering;

use super::wrap::Wrapped;
use super::*;

/// Sends the same record twice (a retransmission) and returns both replies.
fn twice(c: &Client<'_>, call: &Nfs3Call<'_>) -> (Vec<u8>, Vec<u8>) {
    let record = c.record(c.next_xid(), NFS_PROGRAM, 3, call.procedure(), &encode(call));
    let first = c.send(&record).unwrap_or_else(|| panic!("no reply"));
    let second = c.send(&record).unwrap_or_else(|| panic!("no reply to the retransmission"));
    (first, second)
}

#[test]
fn a_retransmitted_remove_gets_the_original_ok_instead_of_noent() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    ok(create(&client, root, b"victim", 0o644), "create");
    let call = Nfs3Call::Remove(RemoveArgs { object: DirOpArgs3 { dir: root, name: b"victim" } });
    let (first, second) = twice(&client, &call);
    assert_eq!(nfs_reply(Nfs3Proc::Remove, &first).status(), NfsStat3::Ok);
    assert_eq!(second, first, "byte-for-byte the original reply");
    assert_eq!(server.drc_replays(), 1);
    assert_eq!(remove(&client, root, b"victim"), NfsStat3::NoEnt, "a new xid executes again");
}

#[test]
fn a_retransmitted_guarded_create_gets_the_original_handle_instead_of_exist() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let how = CreateHow3::Guarded(sattr_mode(0o644));
    let call = Nfs3Call::Create(CreateArgs { where_: DirOpArgs3 { dir: root, name: b"once" }, how });
    let (first, second) = twice(&client, &call);
    assert_eq!(nfs_reply(Nfs3Proc::Create, &first).status(), NfsStat3::Ok);
    assert_eq!(second, first);
    assert_eq!(create(&client, root, b"once", 0o644), Err(NfsErr3::Exist));
}

#[test]
fn a_retransmitted_write_is_not_executed_twice() {
    let wrapped = Wrapped::new();
    let server = server_with(vec![export("/export", wrapped.clone())]);
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    let before = wrapped.mutations.load(Ordering::SeqCst);
    let call = Nfs3Call::Write(WriteArgs::new(file, 0, StableHow::FileSync, b"data"));
    let (first, second) = twice(&client, &call);
    assert_eq!(second, first);
    assert_eq!(wrapped.mutations.load(Ordering::SeqCst), before + 1, "one write reached the backend");
}

#[test]
fn the_same_xid_from_another_client_or_with_other_arguments_executes() {
    let server = server();
    let root = root_of(&server);
    let a = Client::new(&server);
    ok(create(&a, root, b"x", 0o644), "create");
    ok(create(&a, root, b"y", 0o644), "create");
    let remove_x = encode(&Nfs3Call::Remove(RemoveArgs { object: DirOpArgs3 { dir: root, name: b"x" } }));
    let remove_y = encode(&Nfs3Call::Remove(RemoveArgs { object: DirOpArgs3 { dir: root, name: b"y" } }));
    let status = |reply: Option<Vec<u8>>| nfs_reply(Nfs3Proc::Remove, &reply.unwrap_or_default()).status();
    assert_eq!(status(a.send(&a.record(42, NFS_PROGRAM, 3, 12, &remove_x))), NfsStat3::Ok);
    assert_eq!(status(a.send(&a.record(42, NFS_PROGRAM, 3, 12, &remove_y))), NfsStat3::Ok, "other arguments");
    let b = Client::new(&server).from("10.0.0.2:900");
    assert_eq!(status(b.send(&b.record(42, NFS_PROGRAM, 3, 12, &remove_x))), NfsStat3::NoEnt, "another client");
}

#[test]
fn idempotent_calls_are_not_cached() {
    let server = server();
    let client = Client::new(&server);
    let call = Nfs3Call::Getattr(GetattrArgs { object: root_of(&server) });
    let _ = twice(&client, &call);
    assert_eq!(server.drc_replays(), 0);
}

#[test]
fn a_retransmission_while_the_original_executes_is_dropped_then_replayed() {
    let wrapped = Wrapped::new();
    let server = server_with(vec![export("/export", wrapped.clone())]);
    let client = Client::new(&server);
    let root = root_of(&server);
    ok(create(&client, root, b"slow", 0o644), "create");
    let call = Nfs3Call::Remove(RemoveArgs { object: DirOpArgs3 { dir: root, name: b"slow" } });
    let record = client.record(99, NFS_PROGRAM, 3, 12, &encode(&call));
    let gate = wrapped.arm_gate();
    let conn = client.conn;
    let original = std::thread::scope(|s| {
        let worker = s.spawn(|| server.handle(&record, &conn).map(|r| r.to_vec()));
        gate.entered.recv().unwrap_or_else(|e| panic!("the remove never reached the backend: {e}"));
        assert_eq!(server.handle(&record, &conn), None, "in progress: dropped");
        let _ = gate.release.send(());
        worker.join().unwrap_or_else(|_| panic!("worker panicked"))
    });
    let original = original.unwrap_or_else(|| panic!("the original got no reply"));
    assert_eq!(nfs_reply(Nfs3Proc::Remove, &original).status(), NfsStat3::Ok);
    assert_eq!(client.send(&record), Some(original), "completed: replayed");
}
