//! Many threads at once on one backend.

use std::sync::Arc;

use nfs3_proto::StableHow;

use super::{new_dir, new_file, read_all, Scratch};
use crate::backend::dir::DirLimits;
use crate::backend::{Backend, Caller};

#[test]
fn threads_creating_writing_renaming_and_listing_at_once_see_consistent_results() {
    let s = Scratch::new("threads");
    let b = Arc::new(s.backend_with(DirLimits { max_known_files: 10_000, max_open_files: 32, ..DirLimits::default() }));
    let shared = new_file(&b, b.root(), "shared");
    let workers: Vec<_> = (0..4u8)
        .map(|t| {
            let b = Arc::clone(&b);
            std::thread::spawn(move || {
                let dir = new_dir(&b, b.root(), &format!("t{t}"));
                let other = new_dir(&b, b.root(), &format!("u{t}"));
                for i in 0..50u32 {
                    let name = format!("f{i}");
                    let f = new_file(&b, dir, &name);
                    let data = [t, i as u8, 0xAA];
                    b.write(f, u64::from(i) * 3, &data, StableHow::Unstable, Caller::Privileged).expect("write");
                    b.write(shared, u64::from(t) * 4096 + u64::from(i), &[t], StableHow::Unstable, Caller::Privileged)
                        .expect("write shared");
                    b.rename(dir, name.as_bytes(), other, name.as_bytes()).expect("rename");
                    assert_eq!(read_all(&b, f, u64::from(i) * 3, 3).0, data);
                    if i % 10 == 0 {
                        b.readdir(b.root(), 0, 100).expect("readdir");
                    }
                    if i % 2 == 0 {
                        b.remove(other, name.as_bytes(), false).expect("remove");
                    }
                }
                let listed = b.readdir(other, 0, 1000).expect("readdir");
                assert_eq!(listed.entries.len(), 25);
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    for t in 0..4u8 {
        let (data, _) = read_all(&b, shared, u64::from(t) * 4096, 50);
        assert!(data.iter().all(|&x| x == t));
    }
    b.commit(shared, 0, 0).expect("commit");
}
