//! The NFSv4.1 attacks: each runs until its stop flag is raised, checks every answer it gets against what
//! the server must answer, and says what it did ([`V4Report`]): the connection counts of the v3 attacks,
//! the outcomes it saw by name, and the answers that were wrong (with the first one in full).
//!
//! | attack | what it does |
//! |---|---|
//! | `v4-bad-compounds` | the malformed COMPOUNDs: those without a session pipelined, the others in one |
//! | `v4-slot-hammer` | many connections sending SEQUENCE on one slot of one session at once, sequence ids racing |
//! | `v4-client-storm` | unconfirmed EXCHANGE_IDs; client ids asking for too many sessions, then let go |
//! | `v4-client-hoard` | client ids confirmed and kept, as many as the server gives |
//! | `v4-forged-stateids` | READ, WRITE, LOCKU, CLOSE, FREE_STATEID, TEST_STATEID under forged and stolen stateids |
//! | `v4-open-flood` | OPENs of new files, or of one file by new open-owners, never closed |
//! | `v4-lock-storm` | clients locking disjoint byte ranges of one shared file, each from one lock-owner |
//! | `v4-lock-owner-storm` | the same, each LOCK from a new lock-owner |
//! | `v4-relock` | the lock storms' control load: one lock-owner locking its one range again and again |
//! | `v4-backchannel-silent` | back channels never answered, sessions made anew every second (new probes) |
//! | `v4-backchannel-garbage` | the same, answering every callback with garbage |
//! | `v4-reply-flood` | REPLY records nobody asked for, pipelined as fast as the server reads them |

mod backchannel;
mod bad_compounds;
mod clients;
mod locks;
mod opens;
mod pump;
mod slots;
mod stateids;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(crate) use backchannel::{rebind_body, with_back_channel};

use crate::attack::{AttackReport, Tally};
use crate::rpc::{RpcFailure, Target};
use crate::v4::answer::Outcome;
use crate::v4::conn::V4Conn;
use crate::v4::session::{Session, SessionAsk};

/// One NFSv4.1 attack and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V4Attack {
    BadCompounds { connections: usize },
    SlotHammer { connections: usize },
    ClientStorm { connections: usize },
    ClientHoard { connections: usize },
    ForgedStateids { connections: usize },
    OpenFlood { clients: usize },
    LockStorm { clients: usize },
    LockOwnerStorm { clients: usize },
    Relock { clients: usize },
    BackchannelSilent { connections: usize },
    BackchannelGarbage { connections: usize },
    ReplyFlood { connections: usize },
}

impl V4Attack {
    /// Every attack's name.
    pub const NAMES: [&'static str; 12] = [
        "v4-bad-compounds",
        "v4-slot-hammer",
        "v4-client-storm",
        "v4-client-hoard",
        "v4-forged-stateids",
        "v4-open-flood",
        "v4-lock-storm",
        "v4-lock-owner-storm",
        "v4-relock",
        "v4-backchannel-silent",
        "v4-backchannel-garbage",
        "v4-reply-flood",
    ];

    pub fn name(&self) -> &'static str {
        let index = match self {
            V4Attack::BadCompounds { .. } => 0,
            V4Attack::SlotHammer { .. } => 1,
            V4Attack::ClientStorm { .. } => 2,
            V4Attack::ClientHoard { .. } => 3,
            V4Attack::ForgedStateids { .. } => 4,
            V4Attack::OpenFlood { .. } => 5,
            V4Attack::LockStorm { .. } => 6,
            V4Attack::LockOwnerStorm { .. } => 7,
            V4Attack::Relock { .. } => 8,
            V4Attack::BackchannelSilent { .. } => 9,
            V4Attack::BackchannelGarbage { .. } => 10,
            V4Attack::ReplyFlood { .. } => 11,
        };
        V4Attack::NAMES[index]
    }

    /// Parses `NAME` with `n` connections (or clients).
    pub fn parse(name: &str, n: usize) -> Option<V4Attack> {
        Some(match name {
            "v4-bad-compounds" => V4Attack::BadCompounds { connections: n },
            "v4-slot-hammer" => V4Attack::SlotHammer { connections: n },
            "v4-client-storm" => V4Attack::ClientStorm { connections: n },
            "v4-client-hoard" => V4Attack::ClientHoard { connections: n },
            "v4-forged-stateids" => V4Attack::ForgedStateids { connections: n },
            "v4-open-flood" => V4Attack::OpenFlood { clients: n },
            "v4-lock-storm" => V4Attack::LockStorm { clients: n },
            "v4-lock-owner-storm" => V4Attack::LockOwnerStorm { clients: n },
            "v4-relock" => V4Attack::Relock { clients: n },
            "v4-backchannel-silent" => V4Attack::BackchannelSilent { connections: n },
            "v4-backchannel-garbage" => V4Attack::BackchannelGarbage { connections: n },
            "v4-reply-flood" => V4Attack::ReplyFlood { connections: n },
            _ => return None,
        })
    }

    /// Runs as fast as the server answers until `stop` is raised; `Err` only when the attack could not
    /// start (its setup failed).
    pub fn run(&self, target: &Target, stop: &AtomicBool) -> Result<V4Report, RpcFailure> {
        self.run_paced(target, stop, None)
    }

    /// As [`V4Attack::run`], each connection sending at most `per_second` requests a second (`None`: no
    /// limit) — a busy client's pace rather than a flood's, for judging what each request costs others.
    pub fn run_paced(
        &self,
        target: &Target,
        stop: &AtomicBool,
        per_second: Option<u32>,
    ) -> Result<V4Report, RpcFailure> {
        let tally = Tally::default();
        let answers = Answers::default();
        let interval = per_second.map(|n| Duration::from_secs(1) / n.max(1));
        let t = Ctx { target, stop, tally: &tally, answers: &answers, interval };
        match *self {
            V4Attack::BadCompounds { connections } => bad_compounds::run(t, connections)?,
            V4Attack::SlotHammer { connections } => slots::run(t, connections)?,
            V4Attack::ClientStorm { connections } => clients::storm(t, connections)?,
            V4Attack::ClientHoard { connections } => clients::hoard(t, connections)?,
            V4Attack::ForgedStateids { connections } => stateids::run(t, connections)?,
            V4Attack::OpenFlood { clients } => opens::run(t, clients)?,
            V4Attack::LockStorm { clients } => locks::run(t, clients, locks::Storm::Ranges)?,
            V4Attack::LockOwnerStorm { clients } => locks::run(t, clients, locks::Storm::Owners)?,
            V4Attack::Relock { clients } => locks::run(t, clients, locks::Storm::Relock)?,
            V4Attack::BackchannelSilent { connections } => backchannel::run(t, connections, backchannel::Mode::Silent)?,
            V4Attack::BackchannelGarbage { connections } => {
                backchannel::run(t, connections, backchannel::Mode::Garbage)?
            }
            V4Attack::ReplyFlood { connections } => backchannel::reply_flood(t, connections)?,
        }
        Ok(answers.report(self.name(), tally.report()))
    }
}

/// What one run of an attack did and saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct V4Report {
    /// The attack's name.
    pub name: &'static str,
    pub attack: AttackReport,
    /// Answers checked.
    pub answers: u64,
    /// How many answers had each outcome (the COMPOUND's status, or the RPC-level answer).
    pub outcomes: BTreeMap<String, u64>,
    /// Answers that were not what the server must answer.
    pub unexpected: u64,
    /// The first of them: what was sent, what was expected, what came.
    pub first_unexpected: Option<String>,
    /// Back-channel attacks: times SEQUENCE said the back channel was down (SEQ4_STATUS_CB_PATH_DOWN*).
    pub path_down: u64,
    /// Back-channel attacks: callbacks the server sent.
    pub callbacks: u64,
}

impl V4Report {
    /// How many answers had `outcome` (a label such as "NFS4ERR_RESOURCE").
    pub fn count(&self, label: &str) -> u64 {
        self.outcomes.get(label).copied().unwrap_or(0)
    }

    /// One line of JSON.
    pub fn to_json(&self) -> String {
        let a = &self.attack;
        let outcomes: Vec<String> = self.outcomes.iter().map(|(k, v)| format!("\"{}\":{v}", escape(k))).collect();
        format!(
            concat!(
                "{{\"attack\":\"{}\",\"connected\":{},\"refused\":{},\"closed_by_server\":{},\"calls\":{},",
                "\"bytes_sent\":{},\"answers\":{},\"unexpected\":{},\"first_unexpected\":{},\"path_down\":{},",
                "\"callbacks\":{},\"outcomes\":{{{}}}}}"
            ),
            self.name,
            a.connected,
            a.refused,
            a.closed_by_server,
            a.calls,
            a.bytes_sent,
            self.answers,
            self.unexpected,
            self.first_unexpected.as_deref().map_or("null".to_string(), |s| format!("\"{}\"", escape(s))),
            self.path_down,
            self.callbacks,
            outcomes.join(",")
        )
    }
}

fn escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c if c.is_control() => vec![' '],
            c => vec![c],
        })
        .collect()
}

/// What an attack is given: the target, its stop flag, its two tallies, and its pace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub(crate) target: &'a Target,
    pub(crate) stop: &'a AtomicBool,
    pub(crate) tally: &'a Tally,
    pub(crate) answers: &'a Answers,
    /// Time between two requests of one connection; `None`: as fast as the server answers.
    pub(crate) interval: Option<Duration>,
}

impl Ctx<'_> {
    /// A pacer for one connection of the attack.
    pub(crate) fn pacer(&self) -> Pacer {
        Pacer { interval: self.interval, next: Instant::now() }
    }
}

/// Spaces one connection's requests [`Ctx::interval`] apart (none when unpaced); a connection that fell
/// behind by more than a second does not make up for it in a burst.
#[derive(Debug)]
pub(crate) struct Pacer {
    interval: Option<Duration>,
    next: Instant,
}

impl Pacer {
    /// Waits for the next request's turn; true when the attack was stopped meanwhile.
    pub(crate) fn wait(&mut self, stop: &AtomicBool) -> bool {
        let Some(interval) = self.interval else { return stop.load(Relaxed) };
        let now = Instant::now();
        if self.next > now {
            if crate::attack::sleep_unless_stopped(self.next - now, stop) {
                return true;
            }
        } else if now - self.next > Duration::from_secs(1) {
            self.next = now;
        }
        self.next += interval;
        stop.load(Relaxed)
    }
}

/// A connection to the target, counted either way.
pub(crate) fn connect(ctx: Ctx<'_>) -> Result<V4Conn, RpcFailure> {
    let Ctx { target, tally, .. } = ctx;
    V4Conn::connect(target.addr).inspect(|_| tally.connected()).inspect_err(|_| tally.refused())
}

/// A new client id for `owner` with a session asking `ask`, its connection counted either way.
pub(crate) fn establish(ctx: Ctx<'_>, owner: &[u8], ask: SessionAsk) -> Result<Session, RpcFailure> {
    let Ctx { target, tally, .. } = ctx;
    match Session::establish_with(target.addr, owner, ask) {
        Ok(session) => {
            tally.connected();
            Ok(session)
        }
        Err(e) => {
            tally.refused();
            Err(e)
        }
    }
}

/// The answers an attack checked.
#[derive(Debug, Default)]
pub(crate) struct Answers {
    outcomes: Mutex<BTreeMap<String, u64>>,
    first_unexpected: Mutex<Option<String>>,
    answers: AtomicU64,
    unexpected: AtomicU64,
    path_down: AtomicU64,
    callbacks: AtomicU64,
}

impl Answers {
    /// Counts `got`; when it is none of `allowed`, it is unexpected (`sent` says what it answered).
    pub(crate) fn check(&self, sent: &str, got: &Outcome, allowed: &[&Outcome]) {
        self.answers.fetch_add(1, Relaxed);
        *self.outcomes.lock().unwrap_or_else(|e| e.into_inner()).entry(got.label()).or_default() += 1;
        if !allowed.contains(&got) {
            self.unexpected.fetch_add(1, Relaxed);
            let mut first = self.first_unexpected.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_none() {
                let expected: Vec<String> = allowed.iter().map(|o| o.to_string()).collect();
                *first = Some(format!("{sent}: expected {}, got {got}", expected.join(" or ")));
            }
        }
    }

    /// Records a wrong answer that is not a COMPOUND's outcome (data changed, a flag missing).
    pub(crate) fn wrong(&self, what: &str, expected: &str, got: &str) {
        self.answers.fetch_add(1, Relaxed);
        self.unexpected.fetch_add(1, Relaxed);
        let mut first = self.first_unexpected.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| format!("{what}: expected {expected}, got {got}"));
    }

    pub(crate) fn path_down(&self) {
        self.path_down.fetch_add(1, Relaxed);
    }

    pub(crate) fn callback(&self) {
        self.callbacks.fetch_add(1, Relaxed);
    }

    fn report(&self, name: &'static str, attack: AttackReport) -> V4Report {
        V4Report {
            name,
            attack,
            answers: self.answers.load(Relaxed),
            outcomes: self.outcomes.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            unexpected: self.unexpected.load(Relaxed),
            first_unexpected: self.first_unexpected.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            path_down: self.path_down.load(Relaxed),
            callbacks: self.callbacks.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::time::{Duration, Instant};

    use super::{Answers, Pacer, V4Attack};
    use crate::v4::answer::Outcome;

    #[test]
    fn a_paced_connection_sends_no_faster_than_its_pace() {
        let stop = AtomicBool::new(false);
        let mut pacer = Pacer { interval: Some(Duration::from_millis(5)), next: Instant::now() };
        let started = Instant::now();
        for _ in 0..20 {
            assert!(!pacer.wait(&stop));
        }
        // The first request goes at once, the twentieth 19 intervals later.
        assert!(started.elapsed() >= Duration::from_millis(95), "{:?}", started.elapsed());
        stop.store(true, Relaxed);
        assert!(pacer.wait(&stop), "a stopped attack stops waiting");
    }

    #[test]
    fn an_answer_none_of_the_allowed_is_counted_and_the_first_kept() {
        let answers = Answers::default();
        let ok = Outcome::results(&[]);
        let wrong = Outcome::status_only(nfs4_proto::NfsErr4::ServerFault);
        answers.check("a", &ok, &[&ok]);
        answers.check("b", &wrong, &[&ok]);
        answers.check("c", &wrong, &[&ok]);
        let report = answers.report("test", crate::AttackReport::default());
        assert_eq!((report.answers, report.unexpected), (3, 2));
        assert_eq!(report.count("NFS4_OK"), 1);
        assert!(report.first_unexpected.as_deref().is_some_and(|f| f.starts_with("b: ")), "{report:?}");
        assert!(report.to_json().contains("\"unexpected\":2"));
    }

    #[test]
    fn every_attack_name_parses_back_to_its_attack() {
        for name in V4Attack::NAMES {
            let attack = V4Attack::parse(name, 3).expect("a known name");
            assert_eq!(attack.name(), name);
            assert_eq!(crate::Attack::parse(name, 3), Some(crate::Attack::V4(attack)));
        }
        assert_eq!(V4Attack::parse("v4-nothing", 1), None);
    }
}
