//! The tokenizer of a mount.nfs `-o` string: comma-separated entries `key`, `key=value` (a `nokey`
//! flag is just a key), each trimmed of surrounding whitespace, empty entries skipped.
//! [`crate::MountSpec::parse`] reads its options through it, and so can a caller that keeps some
//! options as fields of its own (compare's test cases) without a second parser.

/// One `key[=value]` entry as written; the value is everything after the first `=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The whole entry, e.g. `rsize=4096`: what error messages quote.
    pub raw: &'a str,
    pub key: &'a str,
    /// `None` for a flag (`hard`); `Some("")` for `key=`.
    pub value: Option<&'a str>,
}

impl<'a> Entry<'a> {
    /// One entry already cut out of its option string: `rsize=4096` is key `rsize`, value `4096`.
    pub fn parse(raw: &'a str) -> Entry<'a> {
        let (key, value) = match raw.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (raw, None),
        };
        Entry { raw, key, value }
    }
}

/// The entries of an option string in order, e.g. `" vers=3,,hard "` gives `vers=3` and `hard`.
///
/// ```
/// let keys: Vec<_> = mount_options::entries("vers=3, hard,,rsize=").map(|e| (e.key, e.value)).collect();
/// assert_eq!(keys, [("vers", Some("3")), ("hard", None), ("rsize", Some(""))]);
/// ```
pub fn entries(options: &str) -> impl Iterator<Item = Entry<'_>> {
    options.split(',').map(str::trim).filter(|e| !e.is_empty()).map(Entry::parse)
}
