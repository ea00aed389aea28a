//! `refill_buffers` at the clone level: what each write is filled with, and that the option leaves the
//! I/O pattern alone.

use super::{CloneCore, CloneSetup, Op};
use crate::offsets::Region;
use crate::verify::{Verifier, VerifyKind};
use std::sync::Arc;
use std::time::Instant;

fn core(line: &str, verifier: Option<Verifier>) -> CloneCore {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    let spec = fio_job::parse(None, &args).expect("valid job").jobs.remove(0);
    let setup = CloneSetup {
        files: vec![("f".into(), Region { start: 0, len: spec.size.expect("size") })],
        spec: Arc::new(spec),
        verifier,
        seed: 1,
        live: Arc::default(),
        slot: 0,
        max_read: u64::MAX,
    };
    CloneCore::new(setup, Instant::now())
}

/// The first `n` I/Os with the bytes each write is given (the filler's when the core fills nothing).
fn writes(core: &mut CloneCore, n: usize) -> Vec<(Op, Vec<u8>)> {
    (0..n)
        .map(|_| {
            let op = core.next_op().expect("an I/O");
            let Op::Write { offset, len, .. } = op else { return (op, Vec::new()) };
            let mut buf = core.filler[..len as usize].to_vec();
            core.fill_write(&mut buf, offset);
            (op, buf)
        })
        .collect()
}

const JOB: &str = "--name=r --rw=randwrite --bs=4k --size=64k --loops=2";

#[test]
fn refill_buffers_gives_every_write_new_bytes_and_without_it_they_repeat() {
    let mut plain = core(JOB, None);
    assert!(!plain.fills_writes(), "writes reuse the shared filler");
    let plain = writes(&mut plain, 32);
    assert!(plain.iter().all(|(_, data)| data == &plain[0].1), "the same bytes every time, as today");

    let mut refill = core(&format!("{JOB} --refill_buffers"), None);
    assert!(refill.fills_writes());
    let refill = writes(&mut refill, 32);
    // Two loops over 16 blocks: every block is written twice, and no two writes carry the same bytes.
    assert!(refill.iter().all(|(op, _)| refill.iter().filter(|(o, _)| o == op).count() == 2));
    for (i, (op, data)) in refill.iter().enumerate() {
        assert!(refill[i + 1..].iter().all(|(_, d)| d != data), "{op:?} repeats an earlier write's bytes");
    }
    let ops = |w: &[(Op, Vec<u8>)]| w.iter().map(|(op, _)| *op).collect::<Vec<_>>();
    assert_eq!(ops(&refill), ops(&plain), "the option changes the bytes, not where they go");
}

#[test]
fn under_verify_the_writes_carry_verify_units_whatever_refill_buffers_says() {
    let verifier = Verifier::new(VerifyKind::Crc32c, 4096);
    for refill in ["", "--refill_buffers", "--refill_buffers=0"] {
        let mut core = core(&format!("{JOB} --verify=crc32c {refill}"), Some(verifier));
        assert!(core.fills_writes());
        for (op, data) in writes(&mut core, 4) {
            let Op::Write { offset, .. } = op else { panic!("{op:?}") };
            verifier.check(&data, offset).expect("a verify unit");
        }
    }
}
