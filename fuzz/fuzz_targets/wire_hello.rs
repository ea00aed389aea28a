#![no_main]
//! The wire-baseline hello (crates/wire-baseline) on arbitrary bytes: never a panic; what decodes
//! encodes back to the input's first 16 bytes.
use libfuzzer_sys::fuzz_target;
use wire_baseline::{Hello, HELLO_LEN};

fuzz_target!(|data: &[u8]| {
    match Hello::decode(data) {
        Ok(hello) => assert_eq!(&hello.encode()[..], &data[..HELLO_LEN]),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
