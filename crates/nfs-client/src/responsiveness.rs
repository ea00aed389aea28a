//! Whether the server of a mount is answering, as the Linux client tells it: the first major timeout
//! says "nfs: server X not responding, still trying" (hard) or "..., timed out" (soft), once, and the
//! next reply says "nfs: server OK". One per mount, shared by its connections; this module decides the
//! notices, the drivers log them.

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The "not responding" state of one mount's server.
#[derive(Debug, Default)]
pub(crate) struct Responsiveness {
    /// "not responding" was said and no reply came since.
    not_responding: AtomicBool,
}

/// A line the client says about its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    NotResponding { server: SocketAddr, hard: bool },
    Ok,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The kernel's wording (net/sunrpc/clnt.c, call_timeout).
            Notice::NotResponding { server, hard } => {
                let action = if *hard { "still trying" } else { "timed out" };
                write!(f, "nfs: server {server} not responding, {action}")
            }
            Notice::Ok => f.write_str("nfs: server OK"),
        }
    }
}

impl Responsiveness {
    /// `major` major timeouts happened on a connection to `server`: the notice to give, once until a
    /// reply comes.
    pub(crate) fn major_timeouts(&self, major: u64, server: SocketAddr, hard: bool) -> Option<Notice> {
        if major == 0 || self.not_responding.swap(true, Relaxed) {
            return None;
        }
        Some(Notice::NotResponding { server, hard })
    }

    /// A reply came: "server OK" if "not responding" was said.
    pub(crate) fn replied(&self) -> Option<Notice> {
        let said = self.not_responding.load(Relaxed) && self.not_responding.swap(false, Relaxed);
        said.then_some(Notice::Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SERVER: SocketAddr = SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 2049);

    #[test]
    fn not_responding_is_said_once_until_a_reply_then_server_ok() {
        let r = Responsiveness::default();
        assert_eq!(r.replied(), None, "nothing to take back");
        assert_eq!(r.major_timeouts(0, SERVER, true), None, "no major timeout, no notice");
        let notice = r.major_timeouts(2, SERVER, true).expect("first major timeout");
        assert_eq!(notice.to_string(), "nfs: server 127.0.0.1:2049 not responding, still trying");
        assert_eq!(r.major_timeouts(1, SERVER, true), None, "said once");
        assert_eq!(r.replied(), Some(Notice::Ok));
        assert_eq!(Notice::Ok.to_string(), "nfs: server OK");
        assert_eq!(r.replied(), None);
        let soft = r.major_timeouts(1, SERVER, false).expect("said again after a reply");
        assert_eq!(soft.to_string(), "nfs: server 127.0.0.1:2049 not responding, timed out");
    }
}
