//! A measurement, not a check: the service time of a 4 KiB READ through `Server::handle`, NFSv3 beside
//! NFSv4.1 (SEQUENCE, PUTFH, READ), interleaved in one run. Run with
//! `cargo test -p nfs-server --release -- --ignored measure --nocapture`.

use std::time::Instant;

use nfs4_proto::*;

use super::*;

#[test]
#[ignore = "a measurement"]
fn measure_a_4k_read_v3_beside_v41() {
    let server = server();
    let c = Client::new(&server, "measure");
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "m");
    assert_eq!(c.write(file, stateid, 0, &[1u8; 4096]).status(), OK);
    let v3 = crate::tests::Client::new(&server);
    let fh3 = nfs3_proto::FileHandle3::new(file.as_bytes()).expect("handle");
    let read3 = nfs3_proto::Nfs3Call::Read(nfs3_proto::ReadArgs { file: fh3, offset: 0, count: 4096 });
    let args3 = crate::tests::encode(&read3);
    let rounds = 20_000;
    for round in 0..3 {
        // The records are made before the clock starts: only the server's work is timed.
        let calls3: Vec<Vec<u8>> = (0..rounds).map(|_| v3.record(v3.next_xid(), 100003, 3, 6, &args3)).collect();
        let calls4: Vec<Vec<u8>> = (0..rounds)
            .map(|_| {
                let ops = vec![c.sequence(), putfh(file), NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 4096 })];
                let args = Compound4Args { tag: b"", minorversion: 1, argarray: ops };
                c.record(c.next_xid(), 1, &encode(&args))
            })
            .collect();
        let t = Instant::now();
        for record in &calls3 {
            server.handle(record, &v3.conn).expect("reply");
        }
        let v3_ns = t.elapsed().as_nanos() / rounds as u128;
        let t = Instant::now();
        for record in &calls4 {
            server.handle(record, &c.conn).expect("reply");
        }
        let v4_ns = t.elapsed().as_nanos() / rounds as u128;
        println!("round {round}: v3 READ {v3_ns} ns, v4.1 READ {v4_ns} ns ({:.2}x)", v4_ns as f64 / v3_ns as f64);
    }
}
