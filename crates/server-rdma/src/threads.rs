//! The network threads connections are spread over: each runs an event loop of its own (a Tokio
//! current-thread runtime), and a connection lives on one of them from its accept to its end, so each
//! queue pair's completions are reaped by one thread — the userspace form of a completion vector per
//! queue pair (the Oracle NFS/RDMA study's `comp_vector` spread). Connections are dealt out in turn, and
//! with them the completion vectors their queue pairs are signalled on
//! ([`RdmaServerConfig::comp_vectors`](crate::RdmaServerConfig::comp_vectors)).
//!
//! With one thread the connections run on the caller's runtime, as before there were several. Calls
//! that may block still go to the caller's blocking pool: the network threads never block.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::thread::JoinHandle;

use tokio::runtime::{Builder, Handle};
use tokio::sync::oneshot;

/// Where a new connection goes: its thread's runtime and the completion vector for its queue pair.
pub(crate) struct Placement {
    pub handle: Handle,
    pub comp_vector: u32,
}

/// One network thread: its runtime, what ends its loop, and the thread to join.
struct NetworkThread {
    handle: Handle,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// The network threads of one RDMA server (none of its own when it has one thread).
pub(crate) struct NetworkThreads {
    /// Empty with one thread.
    threads: Vec<NetworkThread>,
    /// The caller's runtime: connections' home with one thread, and the blocking pool with any.
    caller: Handle,
    next: AtomicUsize,
    comp_vectors: u32,
}

impl NetworkThreads {
    /// `count` threads (1: the caller's runtime only), their connections' queue pairs spread over
    /// `comp_vectors` completion vectors. Must be called inside the caller's runtime.
    pub(crate) fn start(count: usize, comp_vectors: u32) -> std::io::Result<NetworkThreads> {
        let caller = Handle::current();
        let mut threads = Vec::new();
        if count > 1 {
            for index in 0..count {
                let name = format!("rdma-net-{index}");
                // Its blocking pool's threads are named alike: the tests see no call runs there.
                let runtime = Builder::new_current_thread().enable_all().thread_name(&name).build()?;
                let handle = runtime.handle().clone();
                let (stop, stopped) = oneshot::channel::<()>();
                let thread = std::thread::Builder::new().name(name).spawn(move || {
                    runtime.block_on(async {
                        let _ = stopped.await;
                    });
                })?;
                threads.push(NetworkThread { handle, stop: Some(stop), thread: Some(thread) });
            }
        }
        Ok(NetworkThreads { threads, caller, next: AtomicUsize::new(0), comp_vectors: comp_vectors.max(1) })
    }

    /// Where the next connection goes: the threads and the vectors in turn.
    pub(crate) fn place(&self) -> Placement {
        let turn = self.next.fetch_add(1, Relaxed);
        let comp_vector = (turn % self.comp_vectors as usize) as u32;
        let handle = match self.threads.len() {
            0 => self.caller.clone(),
            n => self.threads[turn % n].handle.clone(),
        };
        Placement { handle, comp_vector }
    }

    /// The runtime whose blocking pool runs calls that may block.
    pub(crate) fn blocking(&self) -> &Handle {
        &self.caller
    }

    /// Network threads in use (1 when connections run on the caller's runtime).
    pub(crate) fn count(&self) -> usize {
        self.threads.len().max(1)
    }
}

impl Drop for NetworkThreads {
    /// Ends every thread's loop and waits for it: their connections have ended by then
    /// ([`crate::accept`] drains them first), so nothing is left on them. When the server's future was
    /// dropped instead, the last connection may let go of the threads from one of them: that one is
    /// told to end and not waited for (a thread cannot join itself).
    fn drop(&mut self) {
        for network in &mut self.threads {
            if let Some(stop) = network.stop.take() {
                let _ = stop.send(());
            }
        }
        let current = std::thread::current().id();
        for network in &mut self.threads {
            if let Some(thread) = network.thread.take().filter(|t| t.thread().id() != current) {
                let _ = thread.join();
            }
        }
    }
}
