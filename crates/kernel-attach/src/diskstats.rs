//! A block device's I/O counters, `/sys/block/DEV/stat` (Documentation/block/stat.rst): 11 fields
//! before Linux 4.18, 15 with the discard fields, 17 with the flush fields (5.5 on).

use std::path::Path;

use serde::Serialize;

use crate::error::AttachError;

/// The stat file counts 512-byte sectors whatever the device's logical block size (stat.rst).
pub const SECTOR_BYTES: u64 = 512;

/// One reading of a block device's counters; the times are milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskStats {
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_sectors: u64,
    pub read_ticks_ms: u64,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_sectors: u64,
    pub write_ticks_ms: u64,
    /// Requests in flight at the reading (a gauge, not a counter).
    pub in_flight: u64,
    /// Time the device had I/O in flight.
    pub io_ticks_ms: u64,
    /// Sum of each request's time in flight (the weighted `time_in_queue`).
    pub time_in_queue_ms: u64,
    pub discard_ios: u64,
    pub discard_merges: u64,
    pub discard_sectors: u64,
    pub discard_ticks_ms: u64,
    pub flush_ios: u64,
    pub flush_ticks_ms: u64,
}

impl DiskStats {
    /// Parses the text of a stat file read from `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<DiskStats, AttachError> {
        let garbled = |expected: &str| AttachError::Garbled {
            path: path.to_path_buf(),
            expected: expected.to_string(),
            found: text.to_string(),
        };
        let fields = text
            .split_ascii_whitespace()
            .map(|f| f.parse::<u64>())
            .collect::<Result<Vec<u64>, _>>()
            .map_err(|_| garbled("whole numbers"))?;
        if !matches!(fields.len(), 11 | 15 | 17) {
            return Err(garbled("11, 15 or 17 numbers (Documentation/block/stat.rst)"));
        }
        let at = |i: usize| fields.get(i).copied().unwrap_or(0);
        Ok(DiskStats {
            read_ios: at(0),
            read_merges: at(1),
            read_sectors: at(2),
            read_ticks_ms: at(3),
            write_ios: at(4),
            write_merges: at(5),
            write_sectors: at(6),
            write_ticks_ms: at(7),
            in_flight: at(8),
            io_ticks_ms: at(9),
            time_in_queue_ms: at(10),
            discard_ios: at(11),
            discard_merges: at(12),
            discard_sectors: at(13),
            discard_ticks_ms: at(14),
            flush_ios: at(15),
            flush_ticks_ms: at(16),
        })
    }

    /// Reads and parses a stat file.
    pub fn read(path: &Path) -> Result<DiskStats, AttachError> {
        DiskStats::parse(&crate::sysfs::read_file(path)?, path)
    }

    /// What happened between `earlier` and this reading: counters subtract (a counter that went back,
    /// a device re-created, gives 0), `in_flight` is this reading's.
    pub fn delta(&self, earlier: &DiskStats) -> DiskStats {
        let d = |now: u64, then: u64| now.saturating_sub(then);
        DiskStats {
            read_ios: d(self.read_ios, earlier.read_ios),
            read_merges: d(self.read_merges, earlier.read_merges),
            read_sectors: d(self.read_sectors, earlier.read_sectors),
            read_ticks_ms: d(self.read_ticks_ms, earlier.read_ticks_ms),
            write_ios: d(self.write_ios, earlier.write_ios),
            write_merges: d(self.write_merges, earlier.write_merges),
            write_sectors: d(self.write_sectors, earlier.write_sectors),
            write_ticks_ms: d(self.write_ticks_ms, earlier.write_ticks_ms),
            in_flight: self.in_flight,
            io_ticks_ms: d(self.io_ticks_ms, earlier.io_ticks_ms),
            time_in_queue_ms: d(self.time_in_queue_ms, earlier.time_in_queue_ms),
            discard_ios: d(self.discard_ios, earlier.discard_ios),
            discard_merges: d(self.discard_merges, earlier.discard_merges),
            discard_sectors: d(self.discard_sectors, earlier.discard_sectors),
            discard_ticks_ms: d(self.discard_ticks_ms, earlier.discard_ticks_ms),
            flush_ios: d(self.flush_ios, earlier.flush_ios),
            flush_ticks_ms: d(self.flush_ticks_ms, earlier.flush_ticks_ms),
        }
    }

    pub fn read_bytes(&self) -> u64 {
        self.read_sectors.saturating_mul(SECTOR_BYTES)
    }

    pub fn write_bytes(&self) -> u64 {
        self.write_sectors.saturating_mul(SECTOR_BYTES)
    }
}
