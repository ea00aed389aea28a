//! Where a front end runs its calls: the operator's choice ([`Execution`]) and what it resolves to for
//! one handler ([`CallMode`]).

/// Where [`RecordHandler::handle`](crate::RecordHandler::handle) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Execution {
    /// Inline on the connection's task when the handler never blocks, on the blocking pool otherwise.
    #[default]
    Auto,
    /// Always inline on the connection's task: calls of one connection run one after another, replies
    /// leave in call order. Only for handlers that never wait on a disk.
    Inline,
    /// One Tokio task per call (kept for measurement: costs more than `Inline` for the same result).
    TaskPerCall,
    /// One blocking-pool job per call: calls of one connection run in parallel and finish out of order.
    BlockingPool,
}

/// How a connection runs its calls: [`Execution`] resolved against the handler (`Auto` becomes `Inline`
/// or `Blocking`). Shared by the TCP and RPC-over-RDMA front ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMode {
    Inline,
    Task,
    Blocking,
}

impl CallMode {
    pub fn resolve(execution: Execution, handler_may_block: bool) -> CallMode {
        match execution {
            Execution::Auto if handler_may_block => CallMode::Blocking,
            Execution::Auto | Execution::Inline => CallMode::Inline,
            Execution::TaskPerCall => CallMode::Task,
            Execution::BlockingPool => CallMode::Blocking,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_runs_inline_unless_the_handler_may_block() {
        assert_eq!(CallMode::resolve(Execution::Auto, false), CallMode::Inline);
        assert_eq!(CallMode::resolve(Execution::Auto, true), CallMode::Blocking);
        assert_eq!(CallMode::resolve(Execution::TaskPerCall, true), CallMode::Task);
        assert_eq!(CallMode::resolve(Execution::BlockingPool, false), CallMode::Blocking);
    }
}
