//! fio's file rules: default names, directories, filename lists, per-file and per-loop sizes.

use fio_job::{parse, JobSpec};

fn job(body: &str) -> JobSpec {
    let text = format!("[data]\n{body}\n");
    parse(Some((&text, "f.fio")), &[]).unwrap_or_else(|e| panic!("{body}: {e}")).jobs.remove(0)
}

#[test]
fn default_file_names_are_jobname_jobnum_filenum() {
    let j = job("size=4m\nnrfiles=2\nnumjobs=2");
    assert_eq!(j.file_names(0), ["data.0.0", "data.0.1"]);
    assert_eq!(j.file_names(1), ["data.1.0", "data.1.1"]);
}

#[test]
fn directories_are_shared_out_to_clones_round_robin() {
    let j = job("size=4m\ndirectory=/a:/b/\nnumjobs=3");
    assert_eq!(j.directories(), ["/a", "/b/"]);
    assert_eq!(j.file_names(0), ["/a/data.0.0"]);
    assert_eq!(j.file_names(1), ["/b/data.1.0"]);
    assert_eq!(j.file_names(2), ["/a/data.2.0"]);
}

#[test]
fn filename_lists_split_on_colons_with_escapes_and_set_nrfiles() {
    let j = job("size=4m\nnrfiles=8\nfilename=one:two\\:2:three");
    assert_eq!(j.filenames, ["one", "two:2", "three"]);
    assert_eq!(j.nrfiles, 3);
    assert_eq!(j.file_names(0), j.file_names(5));
    let j = job("size=4m\ndirectory=/d1:/d2\nfilename=f");
    assert_eq!(j.file_names(1), ["/d1/f"]);
}

#[test]
fn filename_adds_to_the_files_a_global_section_gave() {
    let set = parse(Some(("[global]\nsize=4m\nfilename=a\n[j]\nfilename=b\n", "g.fio")), &[]).unwrap();
    assert_eq!(set.jobs[0].filenames, ["a", "b"]);
}

#[test]
fn size_is_split_across_files_with_the_first_files_a_block_larger() {
    let j = job("size=10m\nnrfiles=3\nbs=4k");
    let per_file = (10u64 << 20) / 3;
    let extra = ((10u64 << 20) - per_file * 3) / 4096;
    assert_eq!(extra, 0);
    assert_eq!(j.file_io_size(0), per_file);
    assert_eq!(j.io_size(), per_file * 3);

    // The remainder is handed out a block at a time to the first files (only when it holds whole blocks).
    let j = job("size=10\nnrfiles=4\nbs=1");
    let sizes: Vec<u64> = (0..4).map(|f| j.file_io_size(f)).collect();
    assert_eq!((sizes, j.io_size()), (vec![3, 3, 2, 2], 10));
}

#[test]
fn offset_moves_the_io_region_and_grows_the_laid_out_file() {
    let j = job("size=1m\noffset=64k");
    assert_eq!((j.offset, j.file_io_size(0), j.file_size(0)), (65536, 1 << 20, (1 << 20) + 65536));
}

#[test]
fn filesize_sets_each_file_and_size_caps_the_io() {
    let j = job("filesize=1m\nnrfiles=4");
    assert_eq!((j.file_size(3), j.io_size()), (1 << 20, 4 << 20));
    let j = job("filesize=1m\nnrfiles=4\nsize=3m");
    assert_eq!(j.io_size(), 3 << 20);
    let j = job("filesize=1m\noffset=256k");
    assert_eq!((j.file_size(0), j.file_io_size(0)), (1 << 20, 768 << 10));
}

#[test]
fn a_filesize_range_picks_aligned_sizes_within_it_repeatably() {
    let j = job("filesize=64k-1m\nnrfiles=16\nbs=4k");
    assert_eq!(j.filesize, Some((64 << 10, 1 << 20)));
    let sizes: Vec<u64> = (0..16).map(|f| j.file_size(f)).collect();
    assert!(sizes.iter().all(|&s| (64 << 10..=1 << 20).contains(&s) && s % 4096 == 0), "{sizes:?}");
    assert!(sizes.windows(2).any(|w| w[0] != w[1]));
    assert_eq!(sizes, (0..16).map(|f| j.file_size(f)).collect::<Vec<_>>());
    assert_eq!(j.io_size(), sizes.iter().sum::<u64>());
}

#[test]
fn a_size_percentage_takes_that_share_of_each_file() {
    let j = job("filesize=1m\nsize=25%\nnrfiles=2");
    assert_eq!((j.size, j.size_percent), (None, Some(25)));
    assert_eq!((j.file_io_size(0), j.io_size()), (256 << 10, 512 << 10));
}

#[test]
fn min_bs_is_the_smallest_of_either_direction() {
    assert_eq!(job("size=1m\nbs=64k,8k").min_bs(), 8192);
    assert_eq!(job("size=1m\nbssplit=4k/50:64k/50,16k").min_bs(), 4096);
}
