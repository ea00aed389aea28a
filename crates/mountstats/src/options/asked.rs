//! The asked option string, normalised: canonical keys, the last occurrence winning.

/// One asked option after normalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Asked {
    /// Canonical key (`vers`, `proto`, or the option's own name).
    pub key: String,
    /// The value (`None` for a flag).
    pub value: Option<String>,
    /// As written.
    pub written: String,
}

/// Splits and normalises `text`; later occurrences replace earlier ones (fs/nfs/fs_context.c reads
/// options in order, each overwriting the last). `minorversion=N` folds into `vers=4` as `vers=4.N`.
pub(super) fn asked_options(text: &str) -> Vec<Asked> {
    let mut out: Vec<Asked> = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let asked = canonical(entry);
        out.retain(|a| a.key != asked.key);
        out.push(asked);
    }
    fold_minorversion(&mut out);
    out
}

fn canonical(entry: &str) -> Asked {
    let written = entry.to_string();
    let (key, value) = match entry.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (entry, None),
    };
    let (key, value) = match (key, value) {
        ("nfsvers", v) => ("vers", v),
        // mount.nfs's version flags (nfs(5): v2, v3, v4 and, with nfs-utils 2.x, v4.0/v4.1/v4.2).
        (flag, None) if is_version_flag(flag) => ("vers", Some(&flag[1..])),
        ("tcp" | "udp" | "rdma", None) => ("proto", Some(key)),
        (k, v) => (k, v),
    };
    Asked { key: key.to_string(), value: value.map(str::to_string), written }
}

fn is_version_flag(word: &str) -> bool {
    matches!(word, "v2" | "v3" | "v4" | "v4.0" | "v4.1" | "v4.2")
}

/// `vers=4,minorversion=1` means `vers=4.1` (nfs(5): minorversion is the older spelling).
fn fold_minorversion(out: &mut Vec<Asked>) {
    let Some(mi) = out.iter().position(|a| a.key == "minorversion") else { return };
    let Some(vi) = out.iter().position(|a| a.key == "vers" && a.value.as_deref() == Some("4")) else { return };
    let minor = out[mi].value.clone().unwrap_or_default();
    let written = format!("{},{}", out[vi].written, out[mi].written);
    out[vi] = Asked { key: "vers".into(), value: Some(format!("4.{minor}")), written };
    out.remove(mi);
}
