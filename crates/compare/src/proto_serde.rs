//! `#[serde(with = "crate::proto_serde")]` for a [`mount_options::Proto`] field: written as the
//! lowercase name reports have always carried ("tcp", "rdma"), and read back through the mount-option
//! parser's own reading of `proto=NAME`.

use mount_options::{Entry, Proto};
use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(proto: &Proto, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(proto)
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Proto, D::Error> {
    let name = String::deserialize(deserializer)?;
    let raw = format!("proto={name}");
    match Proto::from_entry(&Entry::parse(&raw)) {
        Some(Ok(proto)) => Ok(proto),
        Some(Err(e)) => Err(serde::de::Error::custom(e)),
        None => Err(serde::de::Error::custom(format!("'{name}' is not a transport"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Holder {
        #[serde(with = "super")]
        proto: Proto,
    }

    #[test]
    fn a_proto_is_written_and_read_as_its_lowercase_name() {
        for (proto, json) in [(Proto::Tcp, r#"{"proto":"tcp"}"#), (Proto::Rdma, r#"{"proto":"rdma"}"#)] {
            assert_eq!(serde_json::to_string(&Holder { proto }).unwrap(), json);
            assert_eq!(serde_json::from_str::<Holder>(json).unwrap(), Holder { proto });
        }
        let e = serde_json::from_str::<Holder>(r#"{"proto":"udp"}"#).unwrap_err().to_string();
        assert!(e.contains("unsupported mount option 'proto=udp'"), "{e}");
    }
}
