//! Named counters: the `events:`, `bytes:` and `fsc:` lines of an NFS mount, each a row of numbers
//! whose names come from the order of a kernel enum.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};

/// `events:` in the order of `enum nfs_stat_eventcounters` (include/linux/nfs_iostat.h).
pub const EVENT_NAMES: [&str; 27] = [
    "inode_revalidate",
    "dentry_revalidate",
    "data_invalidate",
    "attr_invalidate",
    "vfs_open",
    "vfs_lookup",
    "vfs_access",
    "vfs_update_page",
    "vfs_read_page",
    "vfs_read_pages",
    "vfs_write_page",
    "vfs_write_pages",
    "vfs_getdents",
    "vfs_setattr",
    "vfs_flush",
    "vfs_fsync",
    "vfs_lock",
    "vfs_release",
    "congestion_wait",
    "setattr_trunc",
    "extend_write",
    "silly_rename",
    "short_read",
    "short_write",
    "delay",
    "pnfs_read",
    "pnfs_write",
];

/// `bytes:` in the order of `enum nfs_stat_bytecounters` (include/linux/nfs_iostat.h).
pub const BYTE_NAMES: [&str; 8] = [
    "normal_read",
    "normal_write",
    "direct_read",
    "direct_write",
    "server_read",
    "server_write",
    "read_pages",
    "write_pages",
];

/// `fsc:` (kernels with fscache statistics) in the order of `enum nfs_stat_fscachecounters`.
pub const FSCACHE_NAMES: [&str; 5] =
    ["pages_read_ok", "pages_read_fail", "pages_written_ok", "pages_written_fail", "pages_uncached"];

/// An ordered list of named counters. Values past the known names (a newer kernel) are kept as
/// `extra_N` (N counting from 0 at the first unknown one); an older kernel's shorter row simply has
/// fewer entries. Serialises as a JSON object in kernel order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    entries: Vec<(Cow<'static, str>, u64)>,
}

impl Counters {
    /// Names `values` after `names`, in order.
    pub fn named(names: &[&'static str], values: impl IntoIterator<Item = u64>) -> Counters {
        let entries = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| match names.get(i) {
                Some(name) => (Cow::Borrowed(*name), v),
                None => (Cow::Owned(format!("extra_{}", i - names.len())), v),
            })
            .collect();
        Counters { entries }
    }

    /// The counter called `name`, if the kernel printed it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// Every counter in kernel order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.entries.iter().map(|(n, v)| (n.as_ref(), *v))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `self - before`, name by name; a counter absent before, or one that went backwards (the mount
    /// was replaced), counts from zero.
    pub fn since(&self, before: &Counters) -> Counters {
        let entries =
            self.entries.iter().map(|(name, after)| (name.clone(), counter_since(*after, before.get(name)))).collect();
        Counters { entries }
    }
}

impl Serialize for Counters {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (name, value) in &self.entries {
            map.serialize_entry(name.as_ref(), value)?;
        }
        map.end()
    }
}

/// The growth of one monotonic counter: `after - before`, or `after` when there was no reading
/// before or the counter went backwards (a new transport, a remount).
pub(crate) fn counter_since(after: u64, before: Option<u64>) -> u64 {
    match before {
        Some(b) if b <= after => after - b,
        _ => after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_trailing_values_past_the_known_names_as_extras() {
        let c = Counters::named(&BYTE_NAMES, 1..=10);
        assert_eq!(c.get("normal_read"), Some(1));
        assert_eq!(c.get("write_pages"), Some(8));
        assert_eq!(c.get("extra_0"), Some(9));
        assert_eq!(c.get("extra_1"), Some(10));
        assert_eq!(c.len(), 10);
    }

    #[test]
    fn a_shorter_row_has_fewer_counters() {
        let c = Counters::named(&EVENT_NAMES, [5, 6]);
        assert_eq!(c.get("dentry_revalidate"), Some(6));
        assert_eq!(c.get("vfs_open"), None);
    }

    #[test]
    fn since_subtracts_by_name_and_restarts_a_counter_that_went_backwards() {
        let before = Counters::named(&BYTE_NAMES, [10, 20]);
        let after = Counters::named(&BYTE_NAMES, [15, 5, 7]);
        let d = after.since(&before);
        assert_eq!(d.iter().collect::<Vec<_>>(), vec![("normal_read", 5), ("normal_write", 5), ("direct_read", 7)]);
    }

    #[test]
    fn serialises_as_an_object_in_kernel_order() {
        let c = Counters::named(&BYTE_NAMES, [1, 2]);
        assert_eq!(serde_json::to_string(&c).unwrap(), r#"{"normal_read":1,"normal_write":2}"#);
    }
}
