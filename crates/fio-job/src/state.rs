//! The option state of a section while options are applied (fio's `thread_options`), its fio
//! defaults, and the final checks that turn it into a [`JobSpec`] (fio's `fixup_options` and the
//! size checks of `setup_files`).

use crate::error::{JobError, Location};
use crate::spec::{BlockSize, JobSpec, Rw, Verify};
use crate::units::Size;
use std::time::Duration;

/// Notices, each kept once, in the order first given.
#[derive(Debug, Default)]
pub(crate) struct Notices(pub Vec<String>);

impl Notices {
    pub fn push(&mut self, notice: String) {
        if !self.0.contains(&notice) {
            self.0.push(notice);
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct State {
    pub kb_base: u32,
    pub name: Option<String>,
    pub description: Option<String>,
    pub rw: Rw,
    pub rwmixread: u8,
    /// `bs=` per direction `[read, write]`.
    pub bs: [u64; 2],
    /// `bsrange=` per direction; once set, `bs=` no longer matters for that direction (as in fio).
    pub range: [Option<(u64, u64)>; 2],
    pub split: [Option<Vec<(u64, u32)>>; 2],
    pub size: Option<Size>,
    pub filesize: Option<(u64, u64)>,
    pub nrfiles: u32,
    pub filenames: Vec<String>,
    pub directory: Option<String>,
    pub offset: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub runtime_us: u64,
    pub time_based: bool,
    pub ramp_us: u64,
    pub startdelay_us: (u64, Option<u64>),
    pub loops: u32,
    pub direct: bool,
    pub fsync: u32,
    pub fdatasync: u32,
    pub end_fsync: bool,
    pub create_on_open: bool,
    /// `refill_buffers` as given (None: not given; fio's `fio_option_is_set`).
    pub refill_buffers: Option<bool>,
    pub verify: Option<Verify>,
    pub verify_fatal: bool,
    pub verify_interval: Option<u64>,
    pub do_verify: bool,
    pub randrepeat: bool,
    pub randseed: Option<u64>,
    pub norandommap: bool,
    pub group_reporting: bool,
    pub stonewall: bool,
    pub new_group: bool,
    pub ioengine: Option<String>,
    pub gtod_reduce: bool,
    pub percentile_list: Option<Vec<f64>>,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
}

impl Default for State {
    /// fio 3.33's defaults for the options nfsbench takes.
    fn default() -> Self {
        State {
            kb_base: 1024,
            name: None,
            description: None,
            rw: Rw::Read,
            rwmixread: 50,
            bs: [4096, 4096],
            range: [None, None],
            split: [None, None],
            size: None,
            filesize: None,
            nrfiles: 1,
            filenames: Vec::new(),
            directory: None,
            offset: 0,
            iodepth: 1,
            numjobs: 1,
            runtime_us: 0,
            time_based: false,
            ramp_us: 0,
            startdelay_us: (0, None),
            loops: 1,
            direct: false,
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
            create_on_open: false,
            refill_buffers: None,
            verify: None,
            verify_fatal: false,
            verify_interval: None,
            do_verify: true,
            randrepeat: true,
            randseed: None,
            norandommap: false,
            group_reporting: false,
            stonewall: false,
            new_group: false,
            ioengine: None,
            gtod_reduce: false,
            percentile_list: None,
            clat_percentiles: true,
            lat_percentiles: false,
        }
    }
}

impl State {
    /// The block sizes of one direction as fio picks them: a split, else a range, else `bs=`.
    fn block_size(&self, dir: usize) -> BlockSize {
        if let Some(split) = &self.split[dir] {
            let min = split.iter().map(|&(b, _)| b).min();
            let max = split.iter().map(|&(b, _)| b).max();
            return match (min, max) {
                (Some(min), Some(max)) if min == max => BlockSize::Fixed(min),
                _ => BlockSize::Split(split.clone()),
            };
        }
        match self.range[dir] {
            Some((min, max)) if min == max => BlockSize::Fixed(min),
            Some((min, max)) => BlockSize::Range { min, max },
            None => BlockSize::Fixed(self.bs[dir]),
        }
    }

    /// The job as these options describe it, without the checks of [`State::finish`].
    fn spec(&self, name: String, size: Option<u64>, size_percent: Option<u8>) -> JobSpec {
        JobSpec {
            name,
            group: 0,
            rw: self.rw,
            rwmixread: self.rwmixread,
            bs: [self.block_size(0), self.block_size(1)],
            size,
            size_percent,
            filesize: self.filesize,
            nrfiles: if self.filenames.is_empty() { self.nrfiles } else { self.filenames.len() as u32 },
            filenames: self.filenames.clone(),
            directory: self.directory.clone(),
            offset: self.offset,
            iodepth: self.iodepth,
            numjobs: self.numjobs,
            runtime: (self.runtime_us > 0).then(|| Duration::from_micros(self.runtime_us)),
            time_based: self.time_based,
            ramp_time: Duration::from_micros(self.ramp_us),
            startdelay: Duration::from_micros(self.startdelay_us.0),
            startdelay_max: self.startdelay_us.1.map(Duration::from_micros),
            loops: self.loops.max(1),
            direct: self.direct,
            fsync: self.fsync,
            fdatasync: self.fdatasync,
            end_fsync: self.end_fsync,
            create_on_open: self.create_on_open,
            // fio's fixup_options: verify= turns refill_buffers on unless the job set it.
            refill_buffers: self.refill_buffers.unwrap_or(self.verify.is_some()),
            verify: self.verify,
            verify_fatal: self.verify_fatal,
            verify_interval: self.verify_interval,
            do_verify: self.do_verify,
            randrepeat: self.randrepeat && self.randseed.is_none(),
            randseed: self.randseed,
            norandommap: self.norandommap,
            group_reporting: self.group_reporting,
            ioengine: self.ioengine.clone(),
            description: self.description.clone(),
            percentile_list: self.percentile_list.clone(),
            clat_percentiles: self.clat_percentiles && !self.gtod_reduce,
            lat_percentiles: self.lat_percentiles && !self.gtod_reduce,
            gtod_reduce: self.gtod_reduce,
            kb_base: self.kb_base,
            options: Vec::new(),
            job_options: Vec::new(),
        }
    }

    /// Checks the job as a whole and resolves what fio resolves at job setup. `job_name` is the section
    /// name (`name=` inside the section overrides it), `at` where the job was defined.
    pub fn finish(&self, job_name: &str, at: &Location, notices: &mut Notices) -> Result<JobSpec, JobError> {
        let name = self.name.clone().unwrap_or_else(|| job_name.to_string());
        let invalid = |message: String| JobError::InvalidJob { at: at.clone(), job: name.clone(), message };
        let (size, size_percent) = match self.size {
            Some(Size::Bytes(0)) | None => (None, None),
            Some(Size::Bytes(b)) => (Some(b), None),
            Some(Size::Percent(p)) => (None, Some(u8::try_from(p).unwrap_or(100))),
        };
        // With filename= and no size, the file's own size is used (fio: an existing file or a block
        // device); only the file engine can read it, and the NFS engine refuses the job.
        if size.is_none() && self.filesize.is_none() && (self.filenames.is_empty() || size_percent.is_some()) {
            return Err(invalid(if size_percent.is_some() {
                "size=N% needs filesize= (nfsbench creates the files and does not look at existing ones)".into()
            } else {
                "you need to specify size= (or filesize=): nfsbench creates the files it uses".into()
            }));
        }
        if let Some((low, _)) = self.filesize {
            if self.offset > low {
                return Err(invalid(format!(
                    "you need to specify valid offset=: {} is past filesize {low}",
                    self.offset
                )));
            }
        }
        let mut time_based = self.time_based;
        if time_based && self.runtime_us == 0 {
            notices.push(format!("job '{name}': time_based requires a runtime; ignoring time_based (as fio does)"));
            time_based = false;
        }
        let writes = self.rw.writes();
        if self.verify.is_some() && writes && self.do_verify {
            if self.numjobs > 1 && !self.filenames.is_empty() {
                notices.push(format!(
                    "job '{name}': multiple writers may overwrite blocks that belong to other jobs; \
                     this can cause verification failures"
                ));
            }
            if time_based && !self.rw.reads() {
                notices.push(format!(
                    "job '{name}': the verify read phase will never start because the write phase uses all of runtime"
                ));
            }
        }
        let mut spec = self.spec(name.clone(), size, size_percent);
        spec.time_based = time_based;
        let io = spec.io_size();
        let sized_by_file = size.is_none() && self.filesize.is_none();
        if io < spec.min_bs() && !sized_by_file {
            return Err(invalid(format!(
                "blocksize {} is larger than the data set ({io} bytes per loop from size/filesize)",
                spec.min_bs()
            )));
        }
        Ok(spec)
    }
}

impl Default for JobSpec {
    /// fio's defaults for a job called "job" (no size: set `size` before using the file methods).
    fn default() -> Self {
        let state = State::default();
        state.spec("job".to_string(), None, None)
    }
}
