pub mod decode;
pub mod serve;
