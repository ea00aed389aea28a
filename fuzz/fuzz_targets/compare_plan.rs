#![no_main]
//! `nfsbench compare` plan files (crates/compare: plan_file::parse, then validate) on arbitrary text.
//! Must not panic; every error must print; a plan that validates must give its cases' mount options,
//! workloads' fio arguments and sweeps' points without panicking, and each runnable case of nfsbench's
//! own client must have a `mount_config()` that parses (validation read the same options against the same
//! target; a kernel-engine case's options are mount.nfs's to judge).
use compare::plan_file::{parse, Defaults};
use compare::validate::validate;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse(&text, Defaults { numjobs: 2, size: 64 << 20 }) {
        Ok(plan) => match validate(&plan, None) {
            Ok(unsupported) => {
                assert_eq!(unsupported.len(), plan.cases.len());
                for (c, why) in plan.cases.iter().zip(&unsupported) {
                    let _ = c.mount_options();
                    if why.is_none() && !c.is_kernel() {
                        if let Err(e) = c.mount_config() {
                            panic!("case '{}' validated but its mount does not parse: {e}", c.name);
                        }
                    }
                }
                for w in &plan.workloads {
                    let _ = (w.description(), w.fio_args(Duration::from_millis(300), Duration::ZERO));
                }
                for s in &plan.sweeps {
                    let _ = plan.sweep_workloads(s);
                }
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        },
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
