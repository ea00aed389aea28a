//! What a fabrics controller holds (drivers/nvme/host/core.c sysfs attributes) and how each asked
//! `nvme connect` option compares with it.

use mountstats::OptionCheck;

use super::discover::{Identity, CLASS};
use crate::checks::{compare, differs, not_shown, same};
use crate::error::AttachError;
use crate::options::{Asked, AttachOptions, Value};
use crate::sysfs::Sysfs;
use crate::target::{same_address, Kind};

/// fabrics.h NVMF_DEF_RECONNECT_DELAY: the delay ctrl_loss_tmo is counted in when none was asked.
const DEFAULT_RECONNECT_DELAY: i64 = 10;
/// drivers/nvme/host/rdma.c NVME_RDMA_MAX_QUEUE_SIZE in Linux 6.1.
const RDMA_MAX_QUEUE_SIZE: u32 = 128;

/// A controller's negotiated state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub identity: Identity,
    /// The admin queue included.
    pub queue_count: u32,
    /// 0's based: the I/O queue size less one.
    pub sqsize: u32,
    pub kato: Option<u32>,
    /// Seconds, or `off` (reconnect forever).
    pub ctrl_loss_tmo: Option<String>,
    pub reconnect_delay: Option<u32>,
    pub hostnqn: Option<String>,
    pub hostid: Option<String>,
}

impl Negotiated {
    pub(crate) fn read(sysfs: &Sysfs, controller: &str, identity: Identity) -> Result<Negotiated, AttachError> {
        let rel = |name: &str| format!("{CLASS}/{controller}/{name}");
        let ctrl_loss_tmo = sysfs.read_opt(&rel("ctrl_loss_tmo"))?;
        if let Some(text) = &ctrl_loss_tmo {
            // core.c nvme_ctrl_loss_tmo_show: "off" when reconnecting forever, else seconds.
            if text != "off" && text.parse::<u32>().is_err() {
                return Err(AttachError::Garbled {
                    path: sysfs.path(&rel("ctrl_loss_tmo")),
                    expected: "a number of seconds or off".to_string(),
                    found: text.clone(),
                });
            }
        }
        Ok(Negotiated {
            identity,
            queue_count: sysfs.read_num(&rel("queue_count"))?,
            sqsize: sysfs.read_num(&rel("sqsize"))?,
            kato: sysfs.read_num_opt(&rel("kato"))?,
            ctrl_loss_tmo,
            reconnect_delay: sysfs.read_num_opt(&rel("reconnect_delay"))?,
            hostnqn: sysfs.read_opt(&rel("hostnqn"))?,
            hostid: sysfs.read_opt(&rel("hostid"))?,
        })
    }

    /// I/O queues: every queue but the admin queue.
    pub(crate) fn io_queues(&self) -> u32 {
        self.queue_count.saturating_sub(1)
    }

    /// Entries per I/O queue (sqsize is 0's based).
    pub(crate) fn queue_size(&self) -> u32 {
        self.sqsize.saturating_add(1)
    }

    /// `transport=rdma,traddr=...,trsvcid=...,queue_count=3,sqsize=127,state=live,...`.
    pub(crate) fn line(&self) -> String {
        let id = &self.identity;
        let mut fields = vec![format!("transport={}", id.transport)];
        for key in ["traddr", "trsvcid"] {
            if let Some(v) = id.address_field(key) {
                fields.push(format!("{key}={v}"));
            }
        }
        fields.push(format!("queue_count={}", self.queue_count));
        fields.push(format!("sqsize={}", self.sqsize));
        fields.push(format!("state={}", id.state));
        let optional = [
            ("kato", self.kato.map(|v| v.to_string())),
            ("ctrl_loss_tmo", self.ctrl_loss_tmo.clone()),
            ("reconnect_delay", self.reconnect_delay.map(|v| v.to_string())),
            ("host_traddr", id.address_field("host_traddr").map(str::to_string)),
            ("src_addr", id.address_field("src_addr").map(str::to_string)),
            ("hostnqn", self.hostnqn.clone()),
            ("hostid", self.hostid.clone()),
        ];
        fields.extend(optional.into_iter().filter_map(|(k, v)| v.map(|v| format!("{k}={v}"))));
        fields.join(",")
    }
}

/// One check per asked option; `cpus` is the number of online CPUs when known.
pub(crate) fn checks(kind: Kind, options: &AttachOptions, neg: &Negotiated, cpus: Option<u32>) -> Vec<OptionCheck> {
    options.entries().iter().map(|asked| check(kind, options, asked, neg, cpus)).collect()
}

fn check(kind: Kind, options: &AttachOptions, asked: &Asked, neg: &Negotiated, cpus: Option<u32>) -> OptionCheck {
    let num = match asked.value {
        Value::Num(n) => n,
        _ => 0,
    };
    let text = asked.value.text();
    match asked.key {
        "nr_io_queues" => io_queues(kind, options, num, neg, cpus, asked),
        "nr_write_queues" | "nr_poll_queues" => not_shown(
            asked,
            format!("the kernel shows only the total of I/O queues: queue_count - 1 = {}", neg.io_queues()),
        ),
        "queue_size" => compare(asked, &text, Some(neg.queue_size().to_string()), "", |_| {
            queue_size_note(kind, num, neg.queue_size())
        }),
        "keep_alive_tmo" => {
            compare(asked, &text, neg.kato.map(|k| k.to_string()), "this kernel has no kato file", |_| None)
        }
        "ctrl_loss_tmo" => ctrl_loss(options, num, neg, asked),
        "reconnect_delay" => compare(
            asked,
            &text,
            neg.reconnect_delay.map(|d| d.to_string()),
            "this kernel has no reconnect_delay file",
            |_| None,
        ),
        "hostnqn" => compare(asked, &text, neg.hostnqn.clone(), "this kernel has no hostnqn file", |_| None),
        "hostid" => {
            let shown = neg.hostid.as_ref().map(|h| h.to_ascii_lowercase());
            compare(asked, &text, shown, "this kernel has no hostid file", |_| None)
        }
        "host_traddr" => host_traddr(asked, &text, neg),
        "tos" => not_shown(asked, "the kernel keeps tos in the connect options only; no sysfs file shows it"),
        "hdr_digest" | "data_digest" => {
            not_shown(asked, "Linux 6.1 shows no NVMe/TCP digest state in sysfs (only failures, in the log)")
        }
        _ => not_shown(asked, "no rule for this option"),
    }
}

/// fabrics.c caps nr_io_queues (and the write and poll queues) at the online CPUs; rdma.c also caps
/// the read and write queues at the RDMA device's completion vectors; the target may then grant fewer
/// (Set Features, Number of Queues). queue_count is their total plus the admin queue.
fn io_queues(
    kind: Kind,
    options: &AttachOptions,
    asked_n: i64,
    neg: &Negotiated,
    cpus: Option<u32>,
    asked: &Asked,
) -> OptionCheck {
    let cap = |n: i64| {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        cpus.map_or(n, |c| n.min(c))
    };
    let extra = options.num("nr_write_queues").map_or(0, cap) + options.num("nr_poll_queues").map_or(0, cap);
    let read = neg.io_queues().saturating_sub(extra);
    let asked_u = u32::try_from(asked_n).unwrap_or(u32::MAX);
    if read == asked_u {
        return same(asked, read.to_string());
    }
    let note = match cpus {
        _ if read > asked_u => None,
        Some(c) if asked_u > c && read == c => Some(format!("the kernel caps nr_io_queues at the online CPUs ({c})")),
        Some(c) if kind == Kind::NvmeRdma => Some(format!(
            "the kernel caps nr_io_queues at the online CPUs ({c}) and at the RDMA device's completion vectors; the target may grant fewer"
        )),
        Some(_) => Some("the target granted fewer I/O queues than asked (Set Features, Number of Queues)".to_string()),
        None => Some("the kernel caps nr_io_queues at the online CPUs, and the target may grant fewer".to_string()),
    };
    differs(asked, read.to_string(), note)
}

/// The host lowers sqsize to the target's CAP.MQES; over RDMA Linux 6.1 also caps it at 128.
fn queue_size_note(kind: Kind, asked: i64, shown: u32) -> Option<String> {
    if i64::from(shown) > asked {
        None
    } else if kind == Kind::NvmeRdma && shown == RDMA_MAX_QUEUE_SIZE {
        Some(format!(
            "sqsize {} is 0's based; the kernel's NVMe/RDMA host caps the queue size at {RDMA_MAX_QUEUE_SIZE} (NVME_RDMA_MAX_QUEUE_SIZE), and the target's CAP.MQES may lower it",
            shown - 1
        ))
    } else {
        Some(format!("sqsize {} is 0's based; the target's maximum queue entries (CAP.MQES) lowered it", shown - 1))
    }
}

/// fabrics.c keeps ctrl_loss_tmo as a count of reconnect attempts, DIV_ROUND_UP(ctrl_loss_tmo,
/// reconnect_delay); core.c shows attempts × reconnect_delay, or `off` for a negative one.
fn ctrl_loss(options: &AttachOptions, asked_n: i64, neg: &Negotiated, asked: &Asked) -> OptionCheck {
    let Some(shown) = neg.ctrl_loss_tmo.clone() else {
        return not_shown(asked, "this kernel has no ctrl_loss_tmo file");
    };
    if asked_n < 0 {
        return compare(asked, "off", Some(shown), "", |_| None);
    }
    let delay = options
        .num("reconnect_delay")
        .or(neg.reconnect_delay.map(i64::from))
        .filter(|d| *d > 0)
        .unwrap_or(DEFAULT_RECONNECT_DELAY);
    let expected = (asked_n + delay - 1) / delay * delay;
    compare(asked, &asked_n.to_string(), Some(shown), "", |shown| {
        (shown == expected.to_string()).then(|| {
            format!("the kernel counts it in reconnect attempts of {delay} s: DIV_ROUND_UP({asked_n}, {delay}) × {delay} = {expected}")
        })
    })
}

/// host_traddr is in the address file when given (nvmf_get_address); over TCP src_addr shows the
/// socket's own address.
fn host_traddr(asked: &Asked, text: &str, neg: &Negotiated) -> OptionCheck {
    let id = &neg.identity;
    let Some((field, shown)) =
        ["host_traddr", "src_addr"].into_iter().find_map(|k| id.address_field(k).map(|v| (k, v)))
    else {
        return not_shown(asked, "the address file shows neither host_traddr nor src_addr");
    };
    match text.parse() {
        Ok(ip) if same_address(shown, ip) => same(asked, shown),
        _ => differs(asked, shown, Some(format!("the address file's {field}"))),
    }
}
