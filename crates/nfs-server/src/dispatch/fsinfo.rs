//! FSINFO (RFC 1813 §3.3.19): transfer sizes and properties. rtmax/wtmax are the server's
//! `max_io_size`, and the preferred sizes the same (as knfsd), so clients use the largest transfers.

use nfs3_proto::{
    FsinfoArgs, FsinfoResFail, FsinfoResOk, Nfs3Result, FSF3_CANSETTIME, FSF3_HOMOGENEOUS, FSF3_LINK, FSF3_SYMLINK,
};

use super::call::Call;
use crate::Reply;

/// Suggested multiple for transfer sizes (a page).
const TRANSFER_MULTIPLE: u32 = 4096;
/// Preferred READDIR request size.
const DIR_PREFERENCE: u32 = 64 * 1024;

pub(crate) fn run(cx: &Call<'_>, args: &FsinfoArgs) -> Reply {
    let res = match cx.resolve(&args.fsroot).and_then(|obj| Ok((obj, obj.getattr()?))) {
        Ok((obj, attrs)) => {
            let max = cx.max_io();
            let backend = obj.backend();
            Nfs3Result::Ok(FsinfoResOk {
                obj_attributes: Some(attrs),
                rtmax: max,
                rtpref: max,
                rtmult: TRANSFER_MULTIPLE,
                wtmax: max,
                wtpref: max,
                wtmult: TRANSFER_MULTIPLE,
                dtpref: DIR_PREFERENCE.min(max),
                maxfilesize: backend.max_file_size(),
                time_delta: backend.time_delta(),
                properties: FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME,
            })
        }
        Err(e) => Nfs3Result::Fail(e, FsinfoResFail::default()),
    };
    cx.reply(&res)
}
