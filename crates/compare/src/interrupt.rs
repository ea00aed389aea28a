//! An interrupted comparison (SIGINT, SIGTERM) stops the cell in progress and ends the plan cleanly: the
//! running `nfsbench run` child is asked to stop (SIGTERM; a kernel-engine child's mount namespace, and
//! with it the mount, goes when it exits), the embedded server is stopped by its owner, and nothing is
//! left running. A second signal exits at once.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The pid of the client child running now, 0 when none.
static CHILD: AtomicU32 = AtomicU32::new(0);

/// Watch for SIGINT and SIGTERM on a thread of its own for the rest of the process.
pub fn watch() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new().name("compare-signals".into()).spawn(move || {
        for _ in signals.forever() {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                eprintln!("nfsbench compare: interrupted again: exiting now");
                std::process::exit(130);
            }
            eprintln!("nfsbench compare: interrupted: stopping the cell in progress (interrupt again to quit at once)");
            terminate(CHILD.load(Ordering::SeqCst));
        }
    })?;
    Ok(())
}

/// Whether the comparison was interrupted.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// `pid` is the client child now running (0: none).
pub(crate) fn set_child(pid: u32) {
    CHILD.store(pid, Ordering::SeqCst);
    // A signal that came between the spawn and this store found no child to stop.
    if pid != 0 && interrupted() {
        terminate(pid);
    }
}

/// SIGTERM to `pid` (std's kill() is SIGKILL, which would leave the child no time to report).
fn terminate(pid: u32) {
    if pid != 0 {
        let _ = std::process::Command::new("kill").arg("-TERM").arg(pid.to_string()).status();
    }
}
