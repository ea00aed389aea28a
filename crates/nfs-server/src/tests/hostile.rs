//! Hostile input: every truncation and many bit flips of valid calls of every procedure never panic and
//! yield either nothing or a well-formed reply to the same xid.

use nfs3_proto::mount::DirPath;
use nfs3_proto::{MountCall, MOUNT_PROGRAM};
use onc_rpc::portmap::{Mapping, IPPROTO_TCP};
use onc_rpc::rpcbind::Rpcb;
use onc_rpc::{RpcMessage, PMAP_PROGRAM};

use super::*;

/// xorshift64*: deterministic, good enough to pick bits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One valid record per procedure of every program, against real handles.
fn valid_records(c: &Client<'_>, root: FileHandle3, file: FileHandle3) -> Vec<Vec<u8>> {
    let d = |name: &'static [u8]| DirOpArgs3 { dir: root, name };
    let sattr = sattr_mode(0o644);
    let calls = vec![
        Nfs3Call::Null,
        Nfs3Call::Getattr(GetattrArgs { object: file }),
        Nfs3Call::Setattr(SetattrArgs { object: file, new_attributes: sattr, guard: None }),
        Nfs3Call::Lookup(LookupArgs { what: d(b"f") }),
        Nfs3Call::Access(AccessArgs { object: file, access: 0x3f }),
        Nfs3Call::Readlink(ReadlinkArgs { symlink: file }),
        Nfs3Call::Read(ReadArgs { file, offset: 0, count: 100 }),
        Nfs3Call::Write(WriteArgs::new(file, 3, StableHow::Unstable, b"hostile data")),
        Nfs3Call::Create(CreateArgs { where_: d(b"c"), how: CreateHow3::Unchecked(sattr) }),
        Nfs3Call::Mkdir(MkdirArgs { where_: d(b"m"), attributes: sattr }),
        Nfs3Call::Symlink(SymlinkArgs {
            where_: d(b"s"),
            symlink: SymlinkData3 { symlink_attributes: sattr, symlink_data: b"target" },
        }),
        Nfs3Call::Mknod(MknodArgs { where_: d(b"n"), what: MknodData3::Fifo(sattr) }),
        Nfs3Call::Remove(RemoveArgs { object: d(b"c") }),
        Nfs3Call::Rmdir(RmdirArgs { object: d(b"m") }),
        Nfs3Call::Rename(RenameArgs { from: d(b"s"), to: d(b"t") }),
        Nfs3Call::Link(LinkArgs { file, link: d(b"l") }),
        Nfs3Call::Readdir(ReaddirArgs { dir: root, cookie: 0, cookieverf: CookieVerf3::default(), count: 1000 }),
        Nfs3Call::Readdirplus(ReaddirplusArgs {
            dir: root,
            cookie: 0,
            cookieverf: CookieVerf3::default(),
            dircount: 500,
            maxcount: 2000,
        }),
        Nfs3Call::Fsstat(FsstatArgs { fsroot: root }),
        Nfs3Call::Fsinfo(FsinfoArgs { fsroot: root }),
        Nfs3Call::Pathconf(PathconfArgs { object: root }),
        Nfs3Call::Commit(CommitArgs { file, offset: 0, count: 0 }),
    ];
    let mut records: Vec<Vec<u8>> =
        calls.iter().map(|call| c.record(c.next_xid(), NFS_PROGRAM, 3, call.procedure(), &encode(call))).collect();
    for call in [MountCall::Null, MountCall::Mnt(DirPath(b"/export")), MountCall::Dump, MountCall::Export] {
        records.push(c.record(c.next_xid(), MOUNT_PROGRAM, 3, call.procedure(), &encode(&call)));
    }
    let mapping = encode(&Mapping { prog: NFS_PROGRAM, vers: 3, prot: IPPROTO_TCP, port: 0 });
    records.push(c.record(c.next_xid(), PMAP_PROGRAM, 2, 3, &mapping));
    let rpcb = encode(&Rpcb { prog: NFS_PROGRAM, vers: 3, netid: b"tcp", addr: b"", owner: b"" });
    records.push(c.record(c.next_xid(), PMAP_PROGRAM, 4, 3, &rpcb));
    records.push(c.record(c.next_xid(), PMAP_PROGRAM, 4, 4, &[]));
    records
}

/// Runs a record; a reply must decode as an RPC reply to the record's xid.
fn survives(c: &Client<'_>, record: &[u8]) {
    if let Some(reply) = c.send(record) {
        let (msg, _) = RpcMessage::decode(&reply).unwrap_or_else(|e| panic!("malformed reply {e} to {record:02x?}"));
        assert!(msg.as_reply().is_some(), "a reply must be a REPLY");
        assert_eq!(Some(msg.xid), RpcMessage::peek_xid(record), "the reply goes to the call's xid");
    }
}

fn fixture(server: &Server) -> (Client<'_>, FileHandle3, FileHandle3) {
    let client = Client::new(server);
    let root = root_of(server);
    let file = ok(create(&client, root, b"f", 0o666), "create");
    ok(write(&client, file, 0, b"some content"), "write");
    (client, root, file)
}

#[test]
fn every_truncation_of_every_valid_call_is_answered_or_dropped_without_panic() {
    let server = server();
    let (client, root, file) = fixture(&server);
    for record in valid_records(&client, root, file) {
        for len in 0..record.len() {
            survives(&client, &record[..len]);
        }
        survives(&client, &record);
    }
}

#[test]
fn random_bit_flips_of_valid_calls_never_panic() {
    let server = server();
    let (client, root, file) = fixture(&server);
    let records = valid_records(&client, root, file);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..20_000 {
        let Some(original) = records.get(round % records.len()) else { continue };
        let mut record = original.clone();
        for _ in 0..=rng.below(4) {
            let bit = rng.below(record.len() * 8);
            if let Some(byte) = record.get_mut(bit / 8) {
                *byte ^= 1 << (bit % 8);
            }
        }
        survives(&client, &record);
    }
}

#[test]
fn random_words_in_place_of_valid_fields_never_panic() {
    let server = server();
    let (client, root, file) = fixture(&server);
    let records = valid_records(&client, root, file);
    let mut rng = Rng(42);
    let nasty = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff, 64, 65, 255, 256, 1024];
    for round in 0..20_000 {
        let Some(original) = records.get(round % records.len()) else { continue };
        let mut record = original.clone();
        let word = rng.below(record.len() / 4) * 4;
        let value: u32 = nasty.get(rng.below(nasty.len())).copied().unwrap_or(0);
        if let Some(slot) = record.get_mut(word..word + 4) {
            slot.copy_from_slice(&value.to_be_bytes());
        }
        survives(&client, &record);
    }
}

#[test]
fn random_garbage_records_never_panic() {
    let server = server();
    let client = Client::new(&server);
    let mut rng = Rng(7);
    for _ in 0..5_000 {
        let len = rng.below(200);
        let record: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        survives(&client, &record);
    }
}
