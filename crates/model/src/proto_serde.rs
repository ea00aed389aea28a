//! `mount_options::Proto` as its `proto=` name (`"tcp"`, `"rdma"`) in serialised inputs and outputs.

use mount_options::Proto;
use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(proto: &Proto, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(proto)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Proto, D::Error> {
    match String::deserialize(d)?.as_str() {
        "tcp" => Ok(Proto::Tcp),
        "rdma" => Ok(Proto::Rdma),
        other => Err(serde::de::Error::custom(format!("unknown proto '{other}' (tcp or rdma)"))),
    }
}
