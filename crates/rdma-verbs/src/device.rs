//! RDMA devices: which exist (`ibv_get_device_list`), what reports call them, and the limits
//! (`ibv_query_device`) that connection parameters are clamped to.
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::io;

use rdma::RdmaError;
use rdma_sys as sys;

use crate::cm::CmId;

/// The names of the RDMA devices present (`rxe0`, `mlx5_0`, ...); empty when there are none or
/// libibverbs cannot list them.
pub fn devices() -> Vec<String> {
    let mut count = 0;
    // SAFETY: ibv_get_device_list returns null or an array of `count` device pointers that stay valid
    // until ibv_free_device_list, which is called once below after the names were copied.
    unsafe {
        let list = sys::ibv_get_device_list(&mut count);
        if list.is_null() {
            return Vec::new();
        }
        let len = usize::try_from(count).unwrap_or(0);
        let names = std::slice::from_raw_parts(list, len)
            .iter()
            .filter(|device| !device.is_null())
            .map(|&device| c_string(sys::ibv_get_device_name(device)))
            .collect();
        sys::ibv_free_device_list(list);
        names
    }
}

/// How reports name a device: "rxe0, Soft-RoCE", "siw0, Soft-iWARP" or just the name. Soft-RoCE and
/// Soft-iWARP devices are recognised by the names rdma-core's tools give them.
pub(crate) fn label(name: &str) -> String {
    if name.starts_with("rxe") {
        format!("{name}, Soft-RoCE")
    } else if name.starts_with("siw") {
        format!("{name}, Soft-iWARP")
    } else {
        name.to_string()
    }
}

/// Copies a C string from rdma-core (empty for null).
///
/// # Safety
/// `text` is null or a NUL-terminated string valid for the duration of the call.
pub(crate) unsafe fn c_string(text: *const libc::c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    // SAFETY: the caller guarantees a valid NUL-terminated string.
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}

/// What one device allows a queue pair, as far as nfsbench asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeviceLimits {
    /// Work requests per queue (`max_qp_wr`).
    pub max_qp_wr: u32,
    /// Entries per completion queue (`max_cqe`).
    pub max_cqe: u32,
    /// RDMA Reads the device serves in flight per QP (`max_qp_rd_atom`): our responder resources.
    pub max_responder_resources: u8,
    /// RDMA Reads the device issues in flight per QP (`max_qp_init_rd_atom`): our initiator depth.
    pub max_initiator_depth: u8,
    /// Scatter/gather elements per work request (`max_sge`).
    pub max_sge: u32,
    /// Type-2B memory windows (IBV_DEVICE_MEM_WINDOW_TYPE_2B; Soft-RoCE has them).
    pub memory_windows: bool,
}

impl DeviceLimits {
    fn from_attr(attr: &sys::ibv_device_attr) -> Self {
        let clamp_u32 = |v: libc::c_int| u32::try_from(v).unwrap_or(0);
        let clamp_u8 = |v: libc::c_int| u8::try_from(v.max(0)).unwrap_or(u8::MAX);
        DeviceLimits {
            max_qp_wr: clamp_u32(attr.max_qp_wr),
            max_cqe: clamp_u32(attr.max_cqe),
            max_responder_resources: clamp_u8(attr.max_qp_rd_atom),
            max_initiator_depth: clamp_u8(attr.max_qp_init_rd_atom),
            max_sge: clamp_u32(attr.max_sge),
            memory_windows: attr.device_cap_flags & sys::ibv_device_cap_flags::IBV_DEVICE_MEM_WINDOW_TYPE_2B != 0,
        }
    }
}

/// The name and limits of the device a connection runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceInfo {
    pub name: String,
    pub limits: DeviceLimits,
}

/// Queries the device `id` is bound to (after address resolution, or a connection request's id).
pub(crate) fn query(id: &CmId) -> Result<DeviceInfo, RdmaError> {
    // The context belongs to librdmacm and stays open while `id` lives, which spans this call.
    let context = id.context();
    if context.is_null() {
        return Err(RdmaError::Invalid("the RDMA-CM id is bound to no device".into()));
    }
    let mut attr = sys::ibv_device_attr::default();
    // SAFETY: `context` is open (see above); `attr` is a valid out-parameter.
    let rc = unsafe { sys::ibv_query_device(context, &mut attr) };
    if rc != 0 {
        return Err(RdmaError::io("ibv_query_device", io::Error::from_raw_os_error(rc.abs())));
    }
    // SAFETY: an open context's `device` is valid as long as the context is.
    let name = unsafe { c_string(sys::ibv_get_device_name((*context).device)) };
    Ok(DeviceInfo { name, limits: DeviceLimits::from_attr(&attr) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_roce_devices_are_labelled_as_such() {
        assert_eq!(label("rxe0"), "rxe0, Soft-RoCE");
        assert_eq!(label("siw0"), "siw0, Soft-iWARP");
        assert_eq!(label("mlx5_0"), "mlx5_0");
    }

    #[test]
    fn device_limits_never_wrap_on_odd_values() {
        let attr = sys::ibv_device_attr {
            max_qp_wr: -1,
            max_cqe: 4096,
            max_qp_rd_atom: 1000,
            max_qp_init_rd_atom: -5,
            ..Default::default()
        };
        let limits = DeviceLimits::from_attr(&attr);
        assert_eq!(limits.max_qp_wr, 0);
        assert_eq!(limits.max_cqe, 4096);
        assert_eq!(limits.max_responder_resources, 255);
        assert_eq!(limits.max_initiator_depth, 0);
    }

    #[test]
    fn listing_devices_never_fails() {
        // On a host without RDMA this is empty; with devices, every name is non-empty.
        assert!(devices().iter().all(|name| !name.is_empty()));
    }
}
