//! fio's file rules for a job: names, per-file sizes and the bytes a clone does per loop
//! (fio's `add_job`, `add_file`, `setup_files` and `fixup_options`, for files that do not exist yet).

use crate::spec::JobSpec;

/// Splits a ':'-separated list as fio's `get_next_str`: `\:` is a colon inside a name, empty entries
/// are skipped.
pub(crate) fn split_names(list: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    for c in list.chars() {
        if c == ':' {
            if current.ends_with('\\') {
                current.pop();
                current.push(':');
            } else if !current.is_empty() {
                names.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        names.push(current);
    }
    names
}

fn join(dir: Option<&str>, name: &str) -> String {
    match dir {
        Some(d) if d.ends_with('/') => format!("{d}{name}"),
        Some(d) => format!("{d}/{name}"),
        None => name.to_string(),
    }
}

/// splitmix64: a fixed, seedable mix for picking sizes in a `filesize=` range.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// fio's default `randseed`.
const FIO_DEFAULT_SEED: u64 = 0x89;

impl JobSpec {
    /// `directory=` split on ':' (empty when not given).
    pub fn directories(&self) -> Vec<String> {
        self.directory.as_deref().map(split_names).unwrap_or_default()
    }

    /// Files each clone uses: the `filename=` entries, else `nrfiles`.
    pub fn file_count(&self) -> u32 {
        if self.filenames.is_empty() {
            self.nrfiles
        } else {
            u32::try_from(self.filenames.len()).unwrap_or(u32::MAX)
        }
    }

    /// The files clone `jobnum` (0..numjobs) uses, directory included. Without `filename=` they are
    /// fio's `{name}.{jobnum}.{filenum}` in directory number `jobnum % directories`; with `filename=`
    /// every clone shares the listed files in the first directory.
    pub fn file_names(&self, jobnum: u32) -> Vec<String> {
        let dirs = self.directories();
        if !self.filenames.is_empty() {
            let dir = dirs.first().map(String::as_str);
            return self.filenames.iter().map(|f| join(dir, f)).collect();
        }
        let dir = (!dirs.is_empty()).then(|| dirs[jobnum as usize % dirs.len()].as_str());
        (0..self.nrfiles).map(|i| join(dir, &format!("{}.{}.{}", self.name, jobnum, i))).collect()
    }

    /// The smallest block size of either direction (fio's `td_min_bs`).
    pub fn min_bs(&self) -> u64 {
        self.bs[0].min().min(self.bs[1].min())
    }

    /// The size file `filenum` is laid out to: `filesize=` (a range picks a size from `randseed`,
    /// aligned down to the smallest block size), else `offset` plus its share of `size=`.
    pub fn file_size(&self, filenum: u32) -> u64 {
        match self.filesize {
            Some((low, high)) if low == high => low,
            Some((low, high)) => {
                let seed = self.randseed.unwrap_or(FIO_DEFAULT_SEED);
                let r = mix(seed ^ mix(u64::from(filenum)));
                let size = low + r % (high - low).saturating_add(1);
                size - size % self.min_bs().max(1)
            }
            None => self.offset.saturating_add(self.file_io_size(filenum)),
        }
    }

    /// Bytes of file `filenum` that I/O covers, starting at `offset` (fio's per-file `io_size`): `size`
    /// split evenly across the files with the first files one block larger when it does not divide;
    /// or `filesize - offset`, cut to `size=N%` of the file when a percentage is given.
    pub fn file_io_size(&self, filenum: u32) -> u64 {
        let files = u64::from(self.file_count().max(1));
        let bs = self.min_bs().max(1);
        if self.filesize.is_none() {
            let size = self.size.unwrap_or(0);
            let each = size / files;
            let extra = (size - each * files) / bs;
            return each + if u64::from(filenum) < extra { bs } else { 0 };
        }
        let file = self.file_size(filenum);
        let region = file.saturating_sub(self.offset);
        match self.size_percent {
            Some(p) if p != 100 => {
                let part = u64::try_from(u128::from(file) * u128::from(p) / 100).unwrap_or(u64::MAX).min(region);
                part - part % bs
            }
            _ => region,
        }
    }

    /// Bytes one clone transfers per loop: the files' I/O regions added up, capped by `size=`.
    pub fn io_size(&self) -> u64 {
        let total: u64 = (0..self.file_count()).map(|f| self.file_io_size(f)).fold(0, u64::saturating_add);
        match self.size {
            Some(size) if size < total => size,
            _ => total,
        }
    }

    /// The verify interval fio uses (None without `verify=`): at most the smallest write block, and a
    /// divisor of the smallest and largest write block (else their gcd).
    pub fn effective_verify_interval(&self) -> Option<u64> {
        self.verify?;
        let (min_w, max_w) = (self.bs[1].min(), self.bs[1].max());
        let mut interval = self.verify_interval.unwrap_or(0);
        if min_w != max_w && interval == 0 {
            interval = min_w;
        }
        if interval > min_w {
            interval = min_w;
        } else if self.rw.reads() && interval > self.bs[0].min() {
            interval = self.bs[0].min();
        }
        if interval == 0 || min_w % interval != 0 || max_w % interval != 0 {
            interval = gcd(min_w, max_w);
        }
        Some(interval)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::split_names;

    #[test]
    fn names_split_on_colons_unless_escaped() {
        assert_eq!(split_names("/a:/b"), ["/a", "/b"]);
        assert_eq!(split_names("/dev/dsk/foo@3,0\\:c"), ["/dev/dsk/foo@3,0:c"]);
        assert_eq!(split_names(":a::b:"), ["a", "b"]);
    }
}
