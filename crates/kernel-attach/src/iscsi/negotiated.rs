//! What an iSCSI session holds after login and how each asked node setting compares with it.
//!
//! libiscsi prints the digests, ImmediateData and InitialR2T as `0`/`1` (iscsi_conn_get_param,
//! iscsi_session_get_param: "%d"); `None`/`CRC32C` and `Yes`/`No`, as iscsiadm shows them, are read
//! too. Everything is normalised to iscsiadm's words.

use mountstats::OptionCheck;

use super::discover::{Session, HOSTS};
use crate::checks::{compare, differs, not_shown, same};
use crate::error::AttachError;
use crate::options::{yes_no, Asked, AttachOptions, Value};
use crate::sysfs::Sysfs;

/// A session's negotiated state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiated {
    /// `tcp` or `iser`.
    pub transport: &'static str,
    pub state: Option<String>,
    pub header_digest: Option<&'static str>,
    pub data_digest: Option<&'static str>,
    pub max_recv_dlength: Option<u64>,
    pub max_xmit_dlength: Option<u64>,
    pub first_burst: Option<u64>,
    pub max_burst: Option<u64>,
    pub immediate_data: Option<bool>,
    pub initial_r2t: Option<bool>,
    /// /sys/block/DEV/device/queue_depth.
    pub queue_depth: Option<u32>,
    /// The SCSI host's can_queue, what the kernel made of cmds_max.
    pub can_queue: Option<u32>,
    pub host: String,
}

impl Negotiated {
    pub(crate) fn read(
        sysfs: &Sysfs,
        transport: &'static str,
        session: &Session,
        host: &str,
        disk: &str,
    ) -> Result<Negotiated, AttachError> {
        let conn = |name: &str| format!("{}/{name}", session.connection_dir());
        let sess = |name: &str| format!("{}/{name}", session.dir());
        Ok(Negotiated {
            transport,
            state: sysfs.read_opt(&sess("state"))?,
            header_digest: read_digest(sysfs, &conn("header_digest"))?,
            data_digest: read_digest(sysfs, &conn("data_digest"))?,
            max_recv_dlength: sysfs.read_num_opt(&conn("max_recv_dlength"))?,
            max_xmit_dlength: sysfs.read_num_opt(&conn("max_xmit_dlength"))?,
            first_burst: sysfs.read_num_opt(&sess("first_burst_len"))?,
            max_burst: sysfs.read_num_opt(&sess("max_burst_len"))?,
            immediate_data: read_yes_no(sysfs, &sess("immediate_data"))?,
            initial_r2t: read_yes_no(sysfs, &sess("initial_r2t"))?,
            queue_depth: sysfs.read_num_opt(&format!("block/{disk}/device/queue_depth"))?,
            can_queue: sysfs.read_num_opt(&format!("{HOSTS}/{host}/can_queue"))?,
            host: host.to_string(),
        })
    }

    /// `transport=iser,header_digest=None,max_recv_dlength=262144,...`.
    pub(crate) fn line(&self) -> String {
        let num = |v: Option<u64>| v.map(|n| n.to_string());
        let fields = [
            ("header_digest", self.header_digest.map(str::to_string)),
            ("data_digest", self.data_digest.map(str::to_string)),
            ("max_recv_dlength", num(self.max_recv_dlength)),
            ("max_xmit_dlength", num(self.max_xmit_dlength)),
            ("first_burst", num(self.first_burst)),
            ("max_burst", num(self.max_burst)),
            ("immediate_data", self.immediate_data.map(|b| yes_no(b).to_string())),
            ("initial_r2t", self.initial_r2t.map(|b| yes_no(b).to_string())),
            ("queue_depth", self.queue_depth.map(|n| n.to_string())),
            ("state", self.state.clone()),
        ];
        std::iter::once(format!("transport={}", self.transport))
            .chain(fields.into_iter().filter_map(|(k, v)| v.map(|v| format!("{k}={v}"))))
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn read_digest(sysfs: &Sysfs, rel: &str) -> Result<Option<&'static str>, AttachError> {
    read_word(sysfs, rel, [("0", "None"), ("1", "CRC32C")], "0, 1, None or CRC32C")
}

fn read_yes_no(sysfs: &Sysfs, rel: &str) -> Result<Option<bool>, AttachError> {
    Ok(read_word(sysfs, rel, [("0", "No"), ("1", "Yes")], "0, 1, No or Yes")?.map(|w| w == "Yes"))
}

/// A two-valued attribute: either spelling of each value, as its word.
fn read_word(
    sysfs: &Sysfs,
    rel: &str,
    words: [(&str, &'static str); 2],
    expected: &str,
) -> Result<Option<&'static str>, AttachError> {
    let Some(text) = sysfs.read_opt(rel)? else { return Ok(None) };
    let text = text.trim();
    words
        .iter()
        .find(|(digit, word)| text == *digit || text.eq_ignore_ascii_case(word))
        .map(|(_, word)| Some(*word))
        .ok_or_else(|| AttachError::Garbled {
            path: sysfs.path(rel),
            expected: expected.to_string(),
            found: text.to_string(),
        })
}

/// One check per asked option.
pub(crate) fn checks(options: &AttachOptions, neg: &Negotiated) -> Vec<OptionCheck> {
    options.entries().iter().map(|asked| check(asked, neg)).collect()
}

fn check(asked: &Asked, neg: &Negotiated) -> OptionCheck {
    let text = asked.value.text();
    let num = |v: Option<u64>| v.map(|n| n.to_string());
    let absent = "this kernel or transport has no file for it";
    match asked.key {
        "header_digest" => digest(asked, neg.header_digest),
        "data_digest" => digest(asked, neg.data_digest),
        "max_recv_dlength" => compare(asked, &text, num(neg.max_recv_dlength), absent, |_| None),
        // RFC 7143 §13.13, §13.14: the burst lengths settle on the smaller of the two sides' values.
        "first_burst" | "max_burst" => {
            let shown = if asked.key == "first_burst" { neg.first_burst } else { neg.max_burst };
            compare(asked, &text, num(shown), absent, |shown| {
                lower(shown, &text).then(|| {
                    "the target's is smaller: the smaller of both sides' values is used (RFC 7143 §13.13-14)"
                        .to_string()
                })
            })
        }
        // RFC 7143 §13.11: ImmediateData is Yes only when both sides say Yes.
        "immediate_data" => compare(asked, &text, neg.immediate_data.map(|b| yes_no(b).to_string()), absent, |shown| {
            (shown == "No")
                .then(|| "the target said No: ImmediateData is the AND of both sides (RFC 7143 §13.11)".to_string())
        }),
        // RFC 7143 §13.10: InitialR2T is Yes when either side says Yes.
        "initial_r2t" => compare(asked, &text, neg.initial_r2t.map(|b| yes_no(b).to_string()), absent, |shown| {
            (shown == "Yes")
                .then(|| "the target asked for Yes: InitialR2T is the OR of both sides (RFC 7143 §13.10)".to_string())
        }),
        "queue_depth" => compare(
            asked,
            &text,
            neg.queue_depth.map(|n| n.to_string()),
            "the disk has no device/queue_depth file",
            |_| None,
        ),
        "cmds_max" => not_shown(
            asked,
            match neg.can_queue {
                Some(n) => format!("the kernel has no file for cmds_max; {} can_queue = {n}", neg.host),
                None => "the kernel has no file for cmds_max".to_string(),
            },
        ),
        "login_timeout" | "login_retries" => not_shown(asked, "how iscsiadm logs in, not negotiated"),
        _ => not_shown(asked, "no rule for this option"),
    }
}

/// RFC 7143 §13.1: of a list of values offered, the target picks the first it supports.
fn digest(asked: &Asked, shown: Option<&'static str>) -> OptionCheck {
    let Some(shown) = shown else { return not_shown(asked, "the connection has no digest file") };
    let Value::Digests(list) = &asked.value else { return not_shown(asked, "no rule for this option") };
    let offered: Vec<&str> = list.iter().map(|d| d.as_str()).collect();
    match offered.iter().position(|d| *d == shown) {
        Some(0) => same(asked, shown),
        Some(_) => differs(
            asked,
            shown,
            Some(format!(
                "the target chose {shown}, the fallback offered: it picks the first value it supports (RFC 7143 §13.1)"
            )),
        ),
        None => differs(asked, shown, None),
    }
}

fn lower(shown: &str, asked: &str) -> bool {
    matches!((shown.parse::<u64>(), asked.parse::<u64>()), (Ok(s), Ok(a)) if s < a)
}
