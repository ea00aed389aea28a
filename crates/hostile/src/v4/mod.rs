//! Hostile and careless NFSv4.1 clients, built from nfs4-proto's encoders: the suite's cases for the
//! COMPOUND decoder, sessions and slots, stateids, the state caps and the back channel of `nfsbench
//! serve`'s NFSv4.1/4.2 server (`crates/cli/tests/hostile_v4.rs`), and the soak's v4 attacks.
//!
//! - [`conn`] and [`answer`]: one connection speaking COMPOUND by hand, and what came back — summed up as
//!   an [`Outcome`] (each result's operation and status in order) that checks compare.
//! - [`session`]: a client id and a session held as a careful client holds them, so that each attack
//!   breaks only the rule it means to; [`good`]: the well-behaved v4 client measured beside the attacks.
//! - [`malformed`]: malformed COMPOUNDs with the answers RFC 8881 requires; [`callback`]: the client's
//!   replies to the server's callbacks, right or garbage.
//! - [`checks`]: one-shot checks of the answers to each misuse, collected as verdicts.
//! - [`attack`]: the floods and storms, run until stopped, every answer checked ([`V4Attack`]).
//! - [`random`]: what attacks forge (session ids, stateids, owners) differs from run to run.

pub mod answer;
pub mod attack;
pub mod callback;
pub mod checks;
pub mod conn;
pub mod good;
pub mod malformed;
pub mod random;
pub mod session;

pub use answer::{Answer, Outcome};
pub use attack::{V4Attack, V4Report};
pub use session::{Session, SessionAsk};
