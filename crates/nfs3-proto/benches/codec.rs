//! Codec cost of the two messages that dominate NFS data traffic, RPC header included:
//! a READ reply carrying 1 MiB and a WRITE call carrying 4 KiB (AUTH_SYS credential, as Linux sends).
//! Encoding borrows the payload (the writer records it as a gather entry), decoding borrows it from
//! the received buffer; both are checked here by pointer before timing. Run: `make bench`.
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use nfs3_proto::*;
use onc_rpc::{AuthSysParms, CallHeader, FramedRecord, OpaqueAuth, ReplyBody, RpcMessage};
use xdr::XdrWriter;

fn attrs() -> Fattr3 {
    Fattr3 {
        ftype: Ftype3::Reg,
        mode: 0o644,
        nlink: 1,
        size: 1 << 30,
        used: 1 << 30,
        uid: 0,
        gid: 0,
        rdev: SpecData3::default(),
        fsid: 7,
        fileid: 42,
        atime: NfsTime3::default(),
        mtime: NfsTime3::default(),
        ctime: NfsTime3::default(),
    }
}

fn read_reply<'p>(data: &'p [u8], reply: &'p Nfs3Reply<'p>) -> XdrWriter<'p> {
    let mut w = XdrWriter::with_capacity(256);
    RpcMessage::reply(0x1234_5678, ReplyBody::success(OpaqueAuth::NONE)).encode_header(&mut w);
    xdr::XdrEncode::encode(reply, &mut w);
    debug_assert_eq!(w.payloads()[0].data.as_ptr(), data.as_ptr());
    w
}

fn bench_read_reply(c: &mut Criterion) {
    let data = vec![0x5a; 1 << 20];
    let reply = Nfs3Reply::Read(Nfs3Result::Ok(ReadResOk::new(Some(attrs()), false, &data)));
    let wire = read_reply(&data, &reply).to_vec();
    let mut g = c.benchmark_group("nfs3 READ reply, 1 MiB");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("encode (header + results, payload borrowed) and frame for writev", |b| {
        b.iter(|| {
            let w = read_reply(black_box(&data), black_box(&reply));
            let framed = FramedRecord::from_writer(&w, usize::MAX);
            black_box(framed.slices().len())
        })
    });
    g.bench_function("decode (header + results, payload borrowed)", |b| {
        b.iter(|| {
            let (_, body) = RpcMessage::decode(black_box(&wire)).expect("valid reply");
            let Ok(Nfs3Reply::Read(Nfs3Result::Ok(ok))) = Nfs3Reply::decode(6, body) else { panic!("not a READ") };
            assert!(std::ptr::eq(ok.data.as_ptr(), wire[wire.len() - data.len()..].as_ptr()));
            black_box(ok.data.len())
        })
    });
    g.finish();
}

fn bench_write_call(c: &mut Criterion) {
    let data = vec![0xa5; 4096];
    let cred_body = AuthSysParms::new(1, b"client.example", 0, 0, &[0, 1, 2]).expect("valid").encode_body();
    let cred = OpaqueAuth::new(onc_rpc::AuthFlavor::AUTH_SYS, &cred_body).expect("fits");
    let fh = FileHandle3::new(&[1; 28]).expect("28 bytes");
    let header = RpcMessage::call(9, CallHeader::new(NFS_PROGRAM, NFS_V3, 7, cred, OpaqueAuth::NONE));
    let encode = |data: &[u8]| {
        let call = Nfs3Call::Write(WriteArgs::new(fh, 1 << 20, StableHow::Unstable, data));
        let mut w = XdrWriter::with_capacity(256);
        header.encode_header(&mut w);
        xdr::XdrEncode::encode(&call, &mut w);
        let framed = FramedRecord::from_writer(&w, usize::MAX);
        black_box(framed.slices().len());
        w.inline_bytes().len()
    };
    let wire = {
        let call = Nfs3Call::Write(WriteArgs::new(fh, 1 << 20, StableHow::Unstable, &data));
        let mut w = XdrWriter::new();
        header.encode_header(&mut w);
        xdr::XdrEncode::encode(&call, &mut w);
        w.to_vec()
    };
    let mut g = c.benchmark_group("nfs3 WRITE call, 4 KiB");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("encode (header + AUTH_SYS + args, payload borrowed) and frame", |b| {
        b.iter(|| encode(black_box(&data)))
    });
    g.bench_function("decode (header + AUTH_SYS + args, payload borrowed)", |b| {
        b.iter(|| {
            let (msg, body) = RpcMessage::decode(black_box(&wire)).expect("valid call");
            let cred = msg.as_call().expect("a call").cred;
            black_box(AuthSysParms::from_opaque_auth(&cred).expect("AUTH_SYS").uid());
            let Ok(Nfs3Call::Write(args)) = Nfs3Call::decode(7, body) else { panic!("not a WRITE") };
            assert!(std::ptr::eq(args.data.as_ptr(), wire[wire.len() - data.len()..].as_ptr()));
            black_box(args.offset)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_read_reply, bench_write_call);
criterion_main!(benches);
