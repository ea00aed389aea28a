//! Concurrent READ/WRITE/GETATTR with namespace churn: no torn data, no lost space, no deadlock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use nfs3_proto::StableHow;

use super::{new_file, used_bytes};
use crate::backend::mem::MemBackend;
use crate::backend::{Backend, Caller, FileId};

const BLOCK: usize = 4096;
const BLOCKS: u64 = 256; // a 1 MiB shared file
const ROUNDS: u64 = 1500;

fn block_byte(block: u64) -> u8 {
    (block % 251) as u8 + 1
}

/// A small LCG: deterministic, no RNG crate.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

fn fill_shared(b: &MemBackend, file: FileId, block: u64) {
    b.write(file, block * BLOCK as u64, &[block_byte(block); BLOCK], StableHow::Unstable, Caller::Privileged).unwrap();
}

#[test]
fn concurrent_reads_writes_and_namespace_changes_stay_consistent() {
    let b = MemBackend::new(256 << 20);
    let shared = new_file(&b, b.root(), "shared");
    for block in 0..BLOCKS {
        fill_shared(&b, shared, block);
    }
    let stop = AtomicBool::new(false);
    let private: Vec<FileId> = (0..2).map(|i| new_file(&b, b.root(), &format!("private{i}"))).collect();
    thread::scope(|scope| {
        for seed in 0..2u64 {
            let (b, stop) = (&b, &stop);
            scope.spawn(move || {
                let mut state = seed + 1;
                while !stop.load(Ordering::Relaxed) {
                    let block = next(&mut state) % BLOCKS;
                    let buf = b.read(shared, block * BLOCK as u64, BLOCK as u32).unwrap().0.data.to_vec();
                    assert!(buf.len() == BLOCK && buf.iter().all(|&x| x == block_byte(block)), "torn block {block}");
                    b.getattr(shared).unwrap();
                }
            });
        }
        let writers: Vec<_> = private
            .iter()
            .enumerate()
            .map(|(i, &own)| {
                let b = &b;
                scope.spawn(move || {
                    let mut state = 100 + i as u64;
                    for round in 0..ROUNDS {
                        let block = next(&mut state) % BLOCKS;
                        fill_shared(b, shared, block);
                        b.write(own, (round % 64) * 70_000, &[i as u8; 1000], StableHow::Unstable, Caller::Privileged)
                            .unwrap();
                    }
                })
            })
            .collect();
        let churn = scope.spawn(|| {
            for round in 0..ROUNDS / 3 {
                let name = format!("tmp{}", round % 5);
                let f = b
                    .create(
                        b.root(),
                        name.as_bytes(),
                        crate::backend::NewNode::File { exclusive: None },
                        crate::backend::CreateMode::Unchecked,
                        &Default::default(),
                    )
                    .unwrap();
                b.write(f, round * 4096, &[9; 4096], StableHow::Unstable, Caller::Privileged).unwrap();
                if round % 2 == 0 {
                    b.rename(b.root(), name.as_bytes(), b.root(), b"renamed").unwrap();
                    b.remove(b.root(), b"renamed", false).unwrap();
                }
            }
        });
        for writer in writers {
            writer.join().unwrap();
        }
        churn.join().unwrap();
        stop.store(true, Ordering::Relaxed);
    });
    let live: u64 = super::list(&b, b.root(), 100)
        .iter()
        .map(|name| b.getattr(b.lookup(b.root(), name.as_bytes()).unwrap()).unwrap().used)
        .sum();
    assert_eq!(used_bytes(&b), live, "space accounting matches the pages files hold");
    for block in 0..BLOCKS {
        let buf = b.read(shared, block * BLOCK as u64, BLOCK as u32).unwrap().0.data.to_vec();
        assert!(buf.iter().all(|&x| x == block_byte(block)));
    }
}
