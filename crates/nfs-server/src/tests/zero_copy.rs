//! READ replies from the `mem:` backend reference its pages (no copy), keep their bytes when the file is
//! written afterwards (copy-on-write), and the server counts bytes copied per byte served: 0 for `mem:`,
//! every byte for `dir:`.

use super::restart::Dirs;
use super::*;
use crate::{PayloadBytes, Reply};

fn read_reply(server: &Server, client: &Client<'_>, file: FileHandle3, offset: u64, count: u32) -> Reply {
    let args = encode(&Nfs3Call::Read(ReadArgs { file, offset, count }));
    server.handle(&client.record(9, NFS_PROGRAM, 3, 6, &args), &client.conn).expect("a READ reply")
}

fn first_slice_ptr(reply: &Reply) -> *const u8 {
    reply.payloads().get(0).and_then(|p| p.data.slices().first()).map_or(std::ptr::null(), |s| s.as_ptr())
}

#[test]
fn a_read_reply_shares_the_page_and_a_later_write_does_not_change_it() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    ok(write(&client, file, 0, &[1; 8192]), "write");
    let held = read_reply(&server, &client, file, 0, 8192);
    let again = read_reply(&server, &client, file, 4096, 4096);
    assert_eq!(first_slice_ptr(&again), first_slice_ptr(&held).wrapping_add(4096), "both point into one page");
    ok(write(&client, file, 0, &[2; 8192]), "write while a reply holds the page");
    let data = |r: &Reply| r.payloads().get(0).map(|p| p.data.to_vec()).unwrap_or_default();
    assert_eq!(data(&held), vec![1; 8192], "the held reply keeps what was read");
    assert_eq!(data(&read_reply(&server, &client, file, 0, 8192)), vec![2; 8192], "the file has the new bytes");
    assert_eq!(server.payload_bytes().copied, 0);
}

#[test]
fn mem_reads_copy_nothing_and_dir_reads_copy_every_byte() {
    let dirs = Dirs::new("copies");
    let server = dirs.server();
    let client = Client::root(&server);
    let mem_root = server.root_handle("/mem").expect("/mem");
    let on_mem = ok(create(&client, mem_root, b"m", 0o644), "create on mem:");
    ok(write(&client, on_mem, 0, &[3; 45_000]), "write");
    read_reply(&server, &client, on_mem, 0, 45_000);
    assert_eq!(server.payload_bytes(), PayloadBytes { served: 45_000, copied: 0 });
    let on_dir = ok(create(&client, root_of(&server), b"d", 0o644), "create on dir:");
    ok(write(&client, on_dir, 0, &[4; 5000]), "write");
    read_reply(&server, &client, on_dir, 0, 5000);
    assert_eq!(server.payload_bytes(), PayloadBytes { served: 50_000, copied: 5000 });
    assert!(server.stats_report().contains("bytes copied per byte served: 0.100"), "{}", server.stats_report());
    server.count_payload_copy(5000);
    assert_eq!(server.payload_bytes().copied, 10_000, "a transport's copy adds to the count");
}
