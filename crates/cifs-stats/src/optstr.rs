//! The two option strings of a check: what was asked (a mount.cifs `-o` string) and the mount's line
//! of /proc/self/mounts (fs/smb/client/cifsfs.c `cifs_show_options`).
//!
//! Asked options are split on `,` (`,,` is a literal comma in any value, as fs/smb/client/fs_context.c
//! `smb3_fs_context_parse_monolithic` reads it — how a password holds a comma), their
//! keys put under the names fs/smb/client/fs_context.c `cifs_fs_parameters` maps them to (`user` →
//! `username`, `pass` → `password`, `dom` → `domain`, `dirmode` → `dir_mode`, `ip` → `addr`, ...), and
//! the last occurrence of a key wins (the kernel reads options in order). Secrets never leave this
//! module: a password, and the part after `%` of `username=user%password`, are written as `***`.

/// Stands for a secret in what a check shows.
pub(crate) const MASK: &str = "***";

/// One asked option after normalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked {
    /// Canonical key (`username` for `user=`), or the flag word (`seal`, `nohard`).
    pub key: String,
    /// The value (`None` for a flag); for `username=user%password` only `user`; for a password `***`.
    pub value: Option<String>,
    /// As written, secrets masked.
    pub written: String,
}

/// The asked options, and the channel count they add up to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskedOptions {
    pub options: Vec<Asked>,
    /// `ctx->max_channels` after every option in order (fs_context.c: `multichannel` raises it to at
    /// least 2, `nomultichannel` sets 1, `max_channels=N` sets N); 1 when none was asked.
    pub max_channels: u64,
}

pub(crate) fn asked_options(text: &str) -> AskedOptions {
    let mut options: Vec<Asked> = Vec::new();
    let mut max_channels = 1u64;
    for entry in split_options(text) {
        let asked = canonical(&entry);
        match (asked.key.as_str(), asked.value.as_deref()) {
            ("multichannel", None) => max_channels = max_channels.max(2),
            ("nomultichannel", None) => max_channels = 1,
            ("max_channels", Some(v)) => max_channels = base0(v).unwrap_or(0),
            _ => {}
        }
        options.retain(|a| a.key != asked.key);
        options.push(asked);
    }
    AskedOptions { options, max_channels }
}

/// Splits on `,`, with `,,` standing for a comma inside a value (smb3_fs_context_parse_monolithic).
fn split_options(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ',' {
            current.push(c);
        } else if chars.peek() == Some(&',') {
            chars.next();
            current.push(',');
        } else {
            out.push(std::mem::take(&mut current));
        }
    }
    out.push(current);
    out.into_iter().map(|e| e.trim().to_string()).filter(|e| !e.is_empty()).collect()
}

fn canonical(entry: &str) -> Asked {
    let Some((key, value)) = entry.split_once('=') else {
        let key = match entry {
            "ignorecase" => "nocase",
            "forcemandatorylock" => "forcemand",
            "setuidfromacl" => "idsfromsid",
            "ignore_signature" => "signloosely",
            "modesid" => "modefromsid",
            "linux" | "posix" => "unix",
            "nolinux" | "noposix" => "nounix",
            other => other,
        };
        return Asked { key: key.to_string(), value: None, written: entry.to_string() };
    };
    let raw = key.trim();
    let key = match raw {
        "user" => "username",
        "pass" => "password",
        "dom" => "domain",
        "dirmode" => "dir_mode",
        "ip" => "addr",
        "cred" => "credentials",
        "min_enc_offload" => "esize",
        other => other,
    };
    let value = value.trim();
    match key {
        "password" => Asked { key: key.into(), value: Some(MASK.into()), written: format!("{raw}={MASK}") },
        // mount.cifs takes `username=user%password` (mount.cifs(8)).
        "username" if value.contains('%') => {
            let user = value.split('%').next().unwrap_or("");
            Asked { key: key.into(), value: Some(user.into()), written: format!("{raw}={user}%{MASK}") }
        }
        _ => Asked { key: key.into(), value: Some(value.into()), written: entry.to_string() },
    }
}

/// A number as `kstrtouint(s, 0, ..)` reads it, which is how fs_parser takes every cifs `u32` option
/// (include/linux/fs_parser.h `fsparam_u32`: base 0): `0x` hex, a leading `0` octal, else decimal.
pub(crate) fn base0(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8).ok()
    } else if text.starts_with(|c: char| c.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

/// The options of a mount's /proc/self/mounts line, values unescaped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MountLine {
    options: Vec<(String, Option<String>)>,
}

impl MountLine {
    /// Takes either the options field alone or the whole line (`DEV DIR cifs OPTS 0 0`: the fourth
    /// field is used).
    pub(crate) fn parse(text: &str) -> MountLine {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let opts = if fields.len() >= 4 { fields[3] } else { fields.first().copied().unwrap_or("") };
        let options = opts
            .split(',')
            .filter(|o| !o.is_empty())
            .map(|o| match o.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(unescape(v))),
                None => (o.to_string(), None),
            })
            .collect();
        MountLine { options }
    }

    /// The value of `key=` (the last one), `None` when absent or a flag.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.options.iter().rev().find(|(k, _)| k == key).and_then(|(_, v)| v.as_deref())
    }

    /// Whether the flag (or option) `word` is present.
    pub(crate) fn has(&self, word: &str) -> bool {
        self.options.iter().any(|(k, _)| k == word)
    }
}

/// Undoes the `\ooo` octal escapes of /proc/self/mounts (fs/seq_file.c `seq_escape`; cifs escapes
/// `,= \t\n\\` in values with `seq_show_option`).
fn unescape(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (bytes[i], octal) {
            (b'\\', Some(d)) => {
                let code = d.iter().fold(0u32, |acc, b| acc * 8 + u32::from(b - b'0'));
                out.push(u8::try_from(code).unwrap_or(b'?'));
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_and_aliases_folded() {
        let a = asked_options("user=bob%s3cret,pass=pa,,ss,dom=LAB,vers=3.0,vers=3.1.1,rdma");
        let shown = format!("{:?}", a.options);
        assert!(!shown.contains("s3cret") && !shown.contains("pa,ss"), "{shown}");
        let keys: Vec<&str> = a.options.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(keys, ["username", "password", "domain", "vers", "rdma"]);
        assert_eq!(a.options[0].value.as_deref(), Some("bob"));
        assert_eq!((a.options[0].written.as_str(), a.options[1].written.as_str()), ("user=bob%***", "pass=***"));
        assert_eq!(a.options[3].value.as_deref(), Some("3.1.1"));
        assert_eq!(a.max_channels, 1);
    }

    #[test]
    fn channels_follow_the_kernels_order() {
        assert_eq!(asked_options("multichannel").max_channels, 2);
        assert_eq!(asked_options("max_channels=4,multichannel").max_channels, 4);
        assert_eq!(asked_options("multichannel,max_channels=3").max_channels, 3);
        assert_eq!(asked_options("max_channels=4,nomultichannel").max_channels, 1);
    }

    #[test]
    fn numbers_read_like_kstrtouint_base_0() {
        assert_eq!(base0("0755"), Some(0o755));
        assert_eq!(base0("755"), Some(755));
        assert_eq!(base0("0x200000"), Some(0x200000));
        assert_eq!(base0("0"), Some(0));
        assert_eq!(base0("abc"), None);
        assert_eq!(base0("-1"), None);
    }

    #[test]
    fn mount_lines_whole_or_options_only() {
        let whole = MountLine::parse("//h/s /mnt/smb cifs rw,vers=3.1.1,username=a\\054b,rdma 0 0");
        assert_eq!((whole.get("vers"), whole.get("username"), whole.has("rdma")), (Some("3.1.1"), Some("a,b"), true));
        let opts = MountLine::parse("rw,vers=3.0");
        assert_eq!(opts.get("vers"), Some("3.0"));
        assert_eq!(unescape("x\\"), "x\\");
    }
}
