//! A kind's option string, written `-o` style (`nr_io_queues=4,queue_size=128,hdr_digest`): for the
//! NVMe kinds the `nvme connect` flags, for iSCSI and iSER the iscsiadm node settings. Unknown options
//! and bad values are refused by name; the last occurrence of an option wins.
//!
//! iSCSI digests take a list (`header_digest=CRC32C,None`): a bare `None` or `CRC32C` right after a
//! digest option continues its list rather than starting an option.

use crate::error::AttachError;
use crate::target::Kind;

/// RFC 7143 §13.12-§13.14: data segment and burst lengths are 512 to 2^24 - 1.
const ISCSI_LENGTH: Form = Form::Num { min: 512, max: 16_777_215 };
/// The kernel reads NVMe-oF numbers with match_int: at most i32::MAX.
const INT_MAX: i64 = i32::MAX as i64;

/// What an option's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Flag,
    Num { min: i64, max: i64 },
    YesNo,
    Digests,
    Nqn,
    Uuid,
    Ip,
}

/// One accepted option: its name, the kinds that take it and how it reaches the tool.
#[derive(Debug)]
struct Spec {
    key: &'static str,
    nvme: bool,
    form: Form,
    /// nvme-cli's short flag (the short flags are the same in nvme-cli 1.x and 2.x), or the iscsiadm
    /// node setting.
    arg: &'static str,
    /// Why a kind of the family refuses it, when one does.
    refused: Option<(Kind, &'static str)>,
}

const fn nvme(key: &'static str, form: Form, arg: &'static str) -> Spec {
    Spec { key, nvme: true, form, arg, refused: None }
}

const fn iscsi(key: &'static str, form: Form, arg: &'static str) -> Spec {
    Spec { key, nvme: false, form, arg, refused: None }
}

const NO_RDMA_DIGEST: Option<(Kind, &str)> =
    Some((Kind::NvmeRdma, "NVMe/RDMA has no PDU digests (the kernel's nvme-rdma takes them over TCP only)"));
const NO_ISER_DIGEST: Option<(Kind, &str)> =
    Some((Kind::Iser, "iSER has no digests (RFC 7145 §5.1: HeaderDigest and DataDigest are None over iSER)"));

const SPECS: [Spec; 24] = [
    // drivers/nvme/host/fabrics.c nvmf_parse_options: I/O queue counts must be > 0.
    nvme("nr_io_queues", Form::Num { min: 1, max: INT_MAX }, "-i"),
    nvme("nr_write_queues", Form::Num { min: 1, max: INT_MAX }, "-W"),
    nvme("nr_poll_queues", Form::Num { min: 1, max: INT_MAX }, "-P"),
    // NVMF_MIN_QUEUE_SIZE..=NVMF_MAX_QUEUE_SIZE (fabrics.h).
    nvme("queue_size", Form::Num { min: 16, max: 1024 }, "-Q"),
    nvme("keep_alive_tmo", Form::Num { min: 0, max: INT_MAX }, "-k"),
    // A negative ctrl_loss_tmo means reconnect forever (fabrics.c).
    nvme("ctrl_loss_tmo", Form::Num { min: -1, max: INT_MAX }, "-l"),
    nvme("reconnect_delay", Form::Num { min: 1, max: INT_MAX }, "-c"),
    nvme("hostnqn", Form::Nqn, "-q"),
    nvme("hostid", Form::Uuid, "-I"),
    nvme("host_traddr", Form::Ip, "-w"),
    // fabrics.c clamps tos above 255 to 255: refuse rather than have it changed silently.
    nvme("tos", Form::Num { min: 0, max: 255 }, "-T"),
    Spec { refused: NO_RDMA_DIGEST, ..nvme("hdr_digest", Form::Flag, "-g") },
    Spec { refused: NO_RDMA_DIGEST, ..nvme("data_digest", Form::Flag, "-G") },
    Spec { refused: NO_ISER_DIGEST, ..iscsi("header_digest", Form::Digests, "node.conn[0].iscsi.HeaderDigest") },
    Spec { refused: NO_ISER_DIGEST, ..iscsi("data_digest", Form::Digests, "node.conn[0].iscsi.DataDigest") },
    iscsi("max_recv_dlength", ISCSI_LENGTH, "node.conn[0].iscsi.MaxRecvDataSegmentLength"),
    iscsi("first_burst", ISCSI_LENGTH, "node.session.iscsi.FirstBurstLength"),
    iscsi("max_burst", ISCSI_LENGTH, "node.session.iscsi.MaxBurstLength"),
    iscsi("immediate_data", Form::YesNo, "node.session.iscsi.ImmediateData"),
    iscsi("initial_r2t", Form::YesNo, "node.session.iscsi.InitialR2T"),
    // The kernel's session-create event carries queue_depth and cmds_max as 16-bit numbers.
    iscsi("queue_depth", Form::Num { min: 1, max: 65535 }, "node.session.queue_depth"),
    // libiscsi refuses fewer than 16 commands per session and clamps above 4096
    // (ISCSI_TOTAL_CMDS_MIN/MAX, iscsi_host_get_max_scsi_cmds).
    iscsi("cmds_max", Form::Num { min: 16, max: 4096 }, "node.session.cmds_max"),
    // How long a login may take before it is given up: open-iscsi's defaults (15 s, 8 attempts) make a
    // refused login take two minutes (seen in the lab).
    iscsi("login_timeout", Form::Num { min: 1, max: 3600 }, "node.conn[0].timeo.login_timeout"),
    iscsi("login_retries", Form::Num { min: 1, max: 100 }, "node.session.initial_login_retry_max"),
];

/// An iSCSI digest as iscsiadm and RFC 7143 spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Digest {
    None,
    Crc32c,
}

impl Digest {
    fn parse(word: &str) -> Option<Digest> {
        if word.eq_ignore_ascii_case("None") {
            Some(Digest::None)
        } else if word.eq_ignore_ascii_case("CRC32C") {
            Some(Digest::Crc32c)
        } else {
            None
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Digest::None => "None",
            Digest::Crc32c => "CRC32C",
        }
    }
}

/// An option's value, checked and normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Flag,
    Num(i64),
    YesNo(bool),
    Digests(Vec<Digest>),
    Text(String),
}

impl Value {
    /// As the tool takes it (and as [`AttachOptions::asked`] writes it).
    pub(crate) fn text(&self) -> String {
        match self {
            Value::Flag => String::new(),
            Value::Num(n) => n.to_string(),
            Value::YesNo(b) => yes_no(*b).to_string(),
            Value::Digests(list) => list.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(","),
            Value::Text(t) => t.clone(),
        }
    }
}

pub(crate) fn yes_no(b: bool) -> &'static str {
    if b {
        "Yes"
    } else {
        "No"
    }
}

/// One asked option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked {
    /// The canonical name.
    pub key: &'static str,
    /// As written in the option string.
    pub written: String,
    pub value: Value,
    /// nvme-cli's flag or iscsiadm's node setting.
    pub arg: &'static str,
}

/// A kind's options, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachOptions {
    kind: Kind,
    entries: Vec<Asked>,
}

impl AttachOptions {
    /// Reads `text` (`key=value,key,...`) as options of `kind`.
    pub fn parse(kind: Kind, text: &str) -> Result<AttachOptions, AttachError> {
        let mut entries: Vec<Asked> = Vec::new();
        for piece in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if continues_digest_list(entries.last(), piece) {
                if let Some(last) = entries.last_mut() {
                    extend_digests(kind, last, piece)?;
                }
                continue;
            }
            let asked = parse_one(kind, piece)?;
            entries.retain(|e| e.key != asked.key);
            entries.push(asked);
        }
        let options = AttachOptions { kind, entries };
        if let (Some(first), Some(max)) = (options.num("first_burst"), options.num("max_burst")) {
            // RFC 7143 §13.14: FirstBurstLength MUST NOT exceed MaxBurstLength.
            if first > max {
                return Err(AttachError::BadOption {
                    kind,
                    option: format!("first_burst={first}"),
                    why: format!("more than max_burst={max} (RFC 7143 §13.14)"),
                });
            }
        }
        Ok(options)
    }

    /// No options: the tools' and the kernel's defaults.
    pub fn none(kind: Kind) -> AttachOptions {
        AttachOptions { kind, entries: Vec::new() }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The options in canonical form, `key=value,...` (flags bare), one per option.
    pub fn asked(&self) -> String {
        let one = |e: &Asked| match e.value {
            Value::Flag => e.key.to_string(),
            _ => format!("{}={}", e.key, e.value.text()),
        };
        self.entries.iter().map(one).collect::<Vec<_>>().join(",")
    }

    /// The option names `kind` accepts.
    pub fn accepted(kind: Kind) -> Vec<&'static str> {
        SPECS.iter().filter(|s| s.nvme == kind.is_nvme() && !refused_for(s, kind)).map(|s| s.key).collect()
    }

    pub(crate) fn entries(&self) -> &[Asked] {
        &self.entries
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Asked> {
        self.entries.iter().find(|e| e.key == key)
    }

    pub(crate) fn num(&self, key: &str) -> Option<i64> {
        match self.get(key)?.value {
            Value::Num(n) => Some(n),
            _ => None,
        }
    }
}

fn refused_for(spec: &Spec, kind: Kind) -> bool {
    spec.refused.is_some_and(|(k, _)| k == kind)
}

fn parse_one(kind: Kind, piece: &str) -> Result<Asked, AttachError> {
    let (key, value) = match piece.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None => (piece, None),
    };
    let spec =
        SPECS.iter().find(|s| s.key == key && s.nvme == kind.is_nvme()).ok_or_else(|| AttachError::UnknownOption {
            kind,
            option: piece.to_string(),
            accepted: AttachOptions::accepted(kind).join(", "),
        })?;
    let bad = |why: String| AttachError::BadOption { kind, option: piece.to_string(), why };
    if let Some((_, why)) = spec.refused.filter(|(k, _)| *k == kind) {
        return Err(bad(why.to_string()));
    }
    let value = match (spec.form, value) {
        (Form::Flag, None) => Value::Flag,
        (Form::Flag, Some(_)) => return Err(bad("a flag: it takes no value".to_string())),
        (_, None) | (_, Some("")) => return Err(bad(format!("needs a value: {}", describe(spec.form)))),
        (form, Some(text)) => parse_value(form, text).ok_or_else(|| bad(format!("expected {}", describe(form))))?,
    };
    Ok(Asked { key: spec.key, written: piece.to_string(), value, arg: spec.arg })
}

fn parse_value(form: Form, text: &str) -> Option<Value> {
    match form {
        Form::Flag => None,
        Form::Num { min, max } => {
            let digits = text.strip_prefix('-').unwrap_or(text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            text.parse::<i64>().ok().filter(|n| (min..=max).contains(n)).map(Value::Num)
        }
        Form::YesNo => {
            if text.eq_ignore_ascii_case("Yes") {
                Some(Value::YesNo(true))
            } else if text.eq_ignore_ascii_case("No") {
                Some(Value::YesNo(false))
            } else {
                None
            }
        }
        Form::Digests => Digest::parse(text).map(|d| Value::Digests(vec![d])),
        Form::Nqn => {
            let ok =
                text.starts_with("nqn.") && text.len() <= 223 && text.chars().all(|c| c.is_ascii_graphic() && c != ',');
            ok.then(|| Value::Text(text.to_string()))
        }
        Form::Uuid => is_uuid(text).then(|| Value::Text(text.to_ascii_lowercase())),
        Form::Ip => text.parse::<std::net::IpAddr>().ok().map(|ip| Value::Text(ip.to_string())),
    }
}

fn describe(form: Form) -> String {
    match form {
        Form::Flag => "no value".to_string(),
        Form::Num { min, max } => format!("a whole number from {min} to {max}"),
        Form::YesNo => "Yes or No".to_string(),
        Form::Digests => "None, CRC32C, CRC32C,None or None,CRC32C".to_string(),
        Form::Nqn => "an NQN (nqn.…, at most 223 bytes, no comma)".to_string(),
        Form::Uuid => "a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)".to_string(),
        Form::Ip => "an IP address".to_string(),
    }
}

/// The kernel parses hostid with uuid_parse: 8-4-4-4-12 hexadecimal digits.
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn continues_digest_list(last: Option<&Asked>, piece: &str) -> bool {
    matches!(last, Some(Asked { value: Value::Digests(_), .. })) && Digest::parse(piece).is_some()
}

/// iscsiadm takes at most two digests, each once: `None`, `CRC32C`, `CRC32C,None`, `None,CRC32C`.
fn extend_digests(kind: Kind, last: &mut Asked, piece: &str) -> Result<(), AttachError> {
    let written = format!("{},{piece}", last.written);
    if let (Value::Digests(list), Some(digest)) = (&mut last.value, Digest::parse(piece)) {
        if list.len() >= 2 || list.contains(&digest) {
            return Err(AttachError::BadOption {
                kind,
                option: written,
                why: format!("expected {}", describe(Form::Digests)),
            });
        }
        list.push(digest);
    }
    last.written = written;
    Ok(())
}
