//! CPU sampling reads this process (procfs; Linux only, as nfsbench is).

use std::hint::black_box;
use std::time::{Duration, Instant};

use report::{CpuSnapshot, CpuUsage};

#[test]
fn cpu_sampling_reads_this_process() {
    let a = CpuSnapshot::now().expect("procfs readable");
    let t0 = Instant::now();
    // Burn ~150 ms of user CPU, sleep (voluntary context switches), touch fresh pages (minor faults).
    let mut x = 0u64;
    while t0.elapsed() < Duration::from_millis(150) {
        for i in 0..10_000u64 {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
    }
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let pages: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 64 * 1024]).collect();
    black_box(&pages);
    let b = CpuSnapshot::now().expect("procfs readable");
    let wall = t0.elapsed();
    let u = CpuUsage::between(&a, &b, wall);
    assert!(u.usr_pct > 0.0 && u.usr_pct <= 100.0 * 64.0, "usr {}%", u.usr_pct);
    assert!(u.cpu_seconds > 0.05 && u.cpu_seconds < 5.0, "cpu {} s", u.cpu_seconds);
    assert!(u.ctx >= 5, "ctx {}", u.ctx);
    assert!(u.minf > 0, "minf {}", u.minf);
    let host = u.host_usr_pct + u.host_sys_pct + u.host_idle_pct;
    assert!(host > 0.0 && host <= 100.0 + 1e-6, "host split {host}");
    assert!(b.host_context_switches() >= a.host_context_switches());
    assert!(b.cpu_seconds() >= a.cpu_seconds());
}

#[test]
fn usage_between_identical_snapshots_is_zero() {
    let a = CpuSnapshot::now().expect("procfs readable");
    let u = CpuUsage::between(&a, &a, Duration::ZERO);
    assert_eq!((u.usr_pct, u.sys_pct, u.ctx, u.minf, u.cpu_seconds), (0.0, 0.0, 0, 0, 0.0));
}
