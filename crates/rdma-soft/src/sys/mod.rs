//! The system calls the provider needs, each wrapped once with its safety argument: sealed shared
//! memory ([`mem`]), SOCK_SEQPACKET sockets with descriptor passing ([`socket`]), and cross-memory
//! attach plus peer liveness ([`process`]). The only modules of the crate that use `unsafe`.

pub(crate) mod mem;
pub(crate) mod process;
pub(crate) mod socket;
