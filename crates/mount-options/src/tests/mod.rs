//! Unit tests, named as the sentences they check.

mod entries;
mod errors;
mod options;
mod roundtrip;
mod targets;
mod versions;

use crate::{MountSpec, OptionsError};

/// Parses `HOST:/EXPORT` with these options, expecting success.
fn spec(options: &str) -> MountSpec {
    match MountSpec::parse("server:/export", Some(options)) {
        Ok(spec) => spec,
        Err(e) => panic!("'{options}' should parse: {e}"),
    }
}

/// Parses with these options, expecting an error, and returns it with its message.
fn error(options: &str) -> (OptionsError, String) {
    match MountSpec::parse("server:/export", Some(options)) {
        Ok(spec) => panic!("'{options}' should fail, got {spec:?}"),
        Err(e) => {
            let message = e.to_string();
            (e, message)
        }
    }
}

/// Parses a target without options, expecting an error message.
fn target_error(target: &str) -> String {
    match MountSpec::parse(target, None) {
        Ok(spec) => panic!("'{target}' should fail, got {spec:?}"),
        Err(e) => e.to_string(),
    }
}
