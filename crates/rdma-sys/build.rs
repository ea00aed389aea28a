//! Builds the C shim (the `static inline` data path of libibverbs, compiled out of line) and generates
//! bindings for the few rdma-core functions and types nfsbench uses, then links libibverbs and librdmacm.

use std::env;
use std::path::PathBuf;

/// Functions of libibverbs and librdmacm that are real symbols, plus the shim's wrappers.
const FUNCTIONS: &[&str] = &[
    "ibv_get_device_list",
    "ibv_free_device_list",
    "ibv_get_device_name",
    "ibv_query_device",
    "ibv_alloc_pd",
    "ibv_dealloc_pd",
    "ibv_dereg_mr",
    "ibv_create_comp_channel",
    "ibv_destroy_comp_channel",
    "ibv_create_cq",
    "ibv_destroy_cq",
    "ibv_get_cq_event",
    "ibv_ack_cq_events",
    "ibv_wc_status_str",
    "rdma_create_event_channel",
    "rdma_destroy_event_channel",
    "rdma_create_id",
    "rdma_destroy_id",
    "rdma_migrate_id",
    "rdma_bind_addr",
    "rdma_listen",
    "rdma_resolve_addr",
    "rdma_resolve_route",
    "rdma_connect",
    "rdma_accept",
    "rdma_reject",
    "rdma_disconnect",
    "rdma_get_cm_event",
    "rdma_ack_cm_event",
    "rdma_event_str",
    "rdma_create_qp",
    "rdma_destroy_qp",
    "nfsbench_.*",
];

/// Enums whose values Rust code names (as modules of constants, so that an unknown value read from
/// the device is a number, never undefined behaviour).
const ENUMS: &[&str] = &[
    "ibv_access_flags",
    "ibv_device_cap_flags",
    "ibv_wc_status",
    "ibv_wc_opcode",
    "ibv_qp_type",
    "rdma_port_space",
    "rdma_cm_event_type",
];

fn main() {
    println!("cargo:rerun-if-changed=csrc/shim.h");
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rerun-if-changed=build.rs");

    cc::Build::new().file("csrc/shim.c").warnings(true).compile("nfsbench_rdma_shim");
    // After the shim, whose symbols they resolve.
    println!("cargo:rustc-link-lib=dylib=rdmacm");
    println!("cargo:rustc-link-lib=dylib=ibverbs");

    let mut builder = bindgen::Builder::default()
        .header("csrc/shim.h")
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .default_enum_style(bindgen::EnumVariation::ModuleConsts)
        .derive_default(true)
        .generate_comments(false)
        .layout_tests(true)
        .allowlist_type("ibv_wc")
        .allowlist_type("ibv_sge")
        .allowlist_type("ibv_qp_init_attr")
        .allowlist_type("ibv_device_attr")
        .allowlist_type("rdma_conn_param")
        .allowlist_type("rdma_cm_event")
        .allowlist_type("sockaddr_in")
        .allowlist_type("sockaddr_in6");
    for function in FUNCTIONS {
        builder = builder.allowlist_function(function);
    }
    for name in ENUMS {
        builder = builder.allowlist_type(name);
    }
    let bindings = builder.generate().expect(
        "bindgen could not parse <infiniband/verbs.h> and <rdma/rdma_cma.h>: install libibverbs-dev, \
         librdmacm-dev and libclang-dev (scripts/install-deps.sh)",
    );
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    bindings.write_to_file(out.join("bindings.rs")).expect("writing bindings.rs into OUT_DIR");
}
