//! File handles on the wire: tampering, other instances, removed files.

use super::*;

fn with_bytes(fh: FileHandle3, f: impl FnOnce(&mut Vec<u8>)) -> FileHandle3 {
    let mut bytes = fh.as_bytes().to_vec();
    f(&mut bytes);
    FileHandle3::new(&bytes).unwrap_or_default()
}

#[test]
fn handles_are_opaque_36_byte_values() {
    let server = server();
    let root = root_of(&server);
    assert_eq!(root.len(), 36);
    let client = Client::new(&server);
    let file = ok(create(&client, root, b"a", 0o644), "create");
    assert_eq!(lookup(&client, root, b"a"), Ok(file), "lookup returns the handle create returned");
}

#[test]
fn tampered_handles_are_bad_handles() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"a", 0o644), "create");
    let tampered = [
        with_bytes(file, |b| b[0] = 1),       // version (the old 32-byte layout)
        with_bytes(file, |b| b[1] = 1),       // reserved
        with_bytes(file, |b| b[3] ^= 1),      // export index
        with_bytes(file, |b| b[13] ^= 0x40),  // file id
        with_bytes(file, |b| b[27] ^= 1),     // generation
        with_bytes(file, |b| b[31] ^= 1),     // tag
        with_bytes(file, |b| b[35] ^= 0x80),  // tag
        with_bytes(file, |b| b.truncate(32)), // short (the old length)
        with_bytes(file, |b| b.push(0)),      // long
        with_bytes(file, |b| b.clear()),      // empty
        FileHandle3::new(&[0xff; 64]).unwrap_or_default(),
    ];
    for fh in tampered {
        assert_eq!(getattr(&client, fh), Err(NfsErr3::BadHandle), "{fh:?}");
        assert_eq!(read(&client, fh, 0, 10).err(), Some(NfsErr3::BadHandle));
        assert_eq!(write(&client, fh, 0, b"x").err(), Some(NfsErr3::BadHandle));
    }
}

#[test]
fn handles_of_a_previous_server_instance_are_stale() {
    let first = server();
    let second = server();
    let client = Client::new(&second);
    assert_eq!(getattr(&client, root_of(&first)), Err(NfsErr3::Stale));
    assert_eq!(lookup(&client, root_of(&first), b"x"), Err(NfsErr3::Stale));
}

#[test]
fn a_changed_instance_field_is_stale() {
    let server = server();
    let client = Client::new(&server);
    let root = with_bytes(root_of(&server), |b| b[6] ^= 0x80);
    assert_eq!(getattr(&client, root), Err(NfsErr3::Stale));
}

#[test]
fn the_handle_of_a_removed_file_is_stale() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let file = ok(create(&client, root, b"gone", 0o644), "create");
    assert_eq!(remove(&client, root, b"gone"), NfsStat3::Ok);
    assert_eq!(getattr(&client, file), Err(NfsErr3::Stale));
    assert_eq!(write(&client, file, 0, b"x").err(), Some(NfsErr3::Stale));
}

#[test]
fn handles_name_their_export() {
    let server = server_with(vec![export("/a", mem()), export("/b", mem())]);
    let client = Client::new(&server);
    let (a, b) = (server.root_handle("/a").unwrap_or_default(), server.root_handle("/b").unwrap_or_default());
    assert_ne!(a, b);
    ok(create(&client, a, b"only-in-a", 0o644), "create");
    assert_eq!(lookup(&client, b, b"only-in-a"), Err(NfsErr3::NoEnt));
    assert!(lookup(&client, a, b"only-in-a").is_ok());
}
