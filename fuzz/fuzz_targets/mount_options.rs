#![no_main]
//! Mount targets and `-o` strings (crates/mount-options) on arbitrary text.
//!
//! Input: UTF-8 text (invalid sequences replaced) split at the first NUL into the target and the option
//! string (no NUL: no options). `MountSpec::parse` resolves no names (only `connection_addrs` and
//! `server_addr` do, and they are called here only when no lookup can happen), so any target is fed.
//! Must not panic; errors must print; and a spec that parses must survive its canonical option string:
//! `parse(target, option_string())` gives the same spec (notices aside) and the same string again, and
//! its transport is the last one `Proto::from_entry` reads from the option string's `entries`.
//! The whole text is also read as a `--wan` link spec (`LinkSpec::parse`): no panic, errors print, and
//! a spec that parses prints as one that parses again.
use std::net::IpAddr;

use libfuzzer_sys::fuzz_target;
use mount_options::{entries, LinkSpec, MountSpec, Proto};

fn without_notices(mut spec: MountSpec) -> MountSpec {
    spec.notices.clear();
    spec
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match LinkSpec::parse(&text) {
        Ok(link) => {
            let printed = link.to_string();
            if let Err(e) = LinkSpec::parse(&printed) {
                panic!("the link spec {text:?} prints as {printed:?}, which does not parse: {e}");
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    let (target, options) = match text.split_once('\0') {
        Some((t, o)) => (t, Some(o)),
        None => (&*text, None),
    };
    let spec = match MountSpec::parse(target, options) {
        Ok(spec) => spec,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let chosen = entries(options.unwrap_or("")).filter_map(|e| Proto::from_entry(&e)).last();
    assert_eq!(chosen.unwrap_or(Ok(Proto::Tcp)), Ok(spec.proto), "{options:?}: the transport entries disagree");
    let printed = spec.option_string();
    let again = match MountSpec::parse(target, Some(&printed)) {
        Ok(again) => again,
        Err(e) => panic!("the option string {printed:?} of {target:?} -o {options:?} does not parse: {e}"),
    };
    assert_eq!(
        without_notices(again.clone()),
        without_notices(spec.clone()),
        "{target:?} -o {options:?} printed as {printed:?}"
    );
    assert_eq!(again.option_string(), printed, "the canonical string is not a fixed point");
    if !spec.remoteports.is_empty() || spec.server.parse::<IpAddr>().is_ok() {
        let addrs = spec.connection_addrs().expect("addresses without a name to resolve");
        assert_eq!(addrs.len(), usize::from(spec.nconnect.max(1)));
        assert_eq!(spec.server_addr().ok(), addrs.first().copied());
    }
});
