//! RPC-over-RDMA credits (RFC 8166 §3.3.1): a call asks for credits, a reply grants them, and a requester
//! never has more calls outstanding than the latest grant. One credit stands for one receive buffer the
//! responder has posted, so overrunning the grant means an RNR error and a lost connection.

/// RFC 8166 §3.3.3: before the first reply a requester may have one call outstanding.
pub const INITIAL_CREDITS: u32 = 1;
/// What the Linux client asks for (`RPCRDMA_DEF_SLOT_TABLE`).
pub const LINUX_CLIENT_CREDIT_REQUEST: u32 = 128;
/// What knfsd grants by default (`svcrdma_max_requests`).
pub const KNFSD_CREDIT_GRANT: u32 = 64;

/// The requester's side: how many calls may be sent now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditState {
    granted: u32,
    outstanding: u32,
    max_requests: u32,
}

impl CreditState {
    /// `max_requests` is the most calls this requester will ever have in flight (its slots and posted
    /// receives for replies); it is also what it asks for in every call. At least 1.
    pub fn new(max_requests: u32) -> Self {
        CreditState { granted: INITIAL_CREDITS, outstanding: 0, max_requests: max_requests.max(1) }
    }

    /// The value to put in `rdma_credit` of a call.
    pub fn request(&self) -> u32 {
        self.max_requests
    }

    /// The responder's latest grant, as accepted.
    pub fn granted(&self) -> u32 {
        self.granted
    }

    /// Calls sent whose reply has not arrived.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// The most calls that may be outstanding now.
    pub fn limit(&self) -> u32 {
        self.granted.min(self.max_requests)
    }

    /// Calls that may be sent now.
    pub fn available(&self) -> u32 {
        self.limit().saturating_sub(self.outstanding)
    }

    /// Takes a credit for a call about to be sent; `false` when none is available (wait for a reply).
    pub fn try_acquire(&mut self) -> bool {
        if self.available() == 0 {
            return false;
        }
        self.outstanding += 1;
        true
    }

    /// Gives back a credit taken by [`try_acquire`](Self::try_acquire) for a call that was never sent.
    pub fn release_unsent(&mut self) {
        self.outstanding = self.outstanding.saturating_sub(1);
    }

    /// A reply (RDMA_MSG, RDMA_NOMSG or RDMA_ERROR) arrived for an outstanding call: its credit comes back
    /// and its `rdma_credit` becomes the grant. A grant of 0 would stall the requester forever, so it is
    /// read as 1 (as the Linux client does); a grant above `max_requests` is clamped to it.
    pub fn on_reply(&mut self, granted: u32) {
        self.outstanding = self.outstanding.saturating_sub(1);
        self.granted = granted.clamp(1, self.max_requests);
    }

    /// A new connection starts from scratch (RFC 8166 §3.3.3): one credit, nothing outstanding.
    pub fn reset(&mut self) {
        self.granted = INITIAL_CREDITS;
        self.outstanding = 0;
    }
}

/// The responder's side: what to put in `rdma_credit` of each reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantPolicy {
    /// Always grant this many, whatever is asked (knfsd's behaviour, with 64).
    Fixed(u32),
    /// Grant what the requester asked for, up to `max`.
    UpToRequested { max: u32 },
}

impl Default for GrantPolicy {
    fn default() -> Self {
        GrantPolicy::Fixed(KNFSD_CREDIT_GRANT)
    }
}

impl GrantPolicy {
    /// The grant for a reply to a call that asked for `requested`, when `posted_receives` receive buffers
    /// are posted for this connection. Never more than the posted receives (each credit is a receive the
    /// requester may consume, RFC 8166 §3.3.1) and never 0: a zero grant stops the requester, or makes a
    /// lenient one like Linux serialise all I/O. A responder must therefore keep at least one receive posted.
    pub fn grant(&self, requested: u32, posted_receives: u32) -> u32 {
        let wanted = match *self {
            GrantPolicy::Fixed(n) => n,
            GrantPolicy::UpToRequested { max } => requested.min(max),
        };
        wanted.min(posted_receives).max(1)
    }
}
