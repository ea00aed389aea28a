//! Declarative helpers of NFSv4: bounded opaques and the like (structs, enums and statuses are the `xdr`
//! crate's `xdr_struct!`, `xdr_enum!` and `wire_status!`).

/// Declares a borrowed, bounded variable-length opaque (`opaque<MAX>` or `utf8str_*`, RFC 4506 §4.10):
/// a newtype over `&'a [u8]` whose decoder checks `$max` and the bytes present before anything else.
macro_rules! bounded_bytes {
    ($(#[$meta:meta])* $name:ident, $max:expr, $what:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name<'a>(pub &'a [u8]);

        impl<'a> $name<'a> {
            /// The most bytes the decoder accepts.
            pub const MAX: u32 = $max;

            pub const fn as_bytes(&self) -> &'a [u8] {
                self.0
            }
        }

        impl std::ops::Deref for $name<'_> {
            type Target = [u8];
            fn deref(&self) -> &[u8] {
                self.0
            }
        }

        impl<'a> From<&'a [u8]> for $name<'a> {
            fn from(b: &'a [u8]) -> Self {
                $name(b)
            }
        }

        impl<'a, const N: usize> From<&'a [u8; N]> for $name<'a> {
            fn from(b: &'a [u8; N]) -> Self {
                $name(b)
            }
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:?})", stringify!($name), String::from_utf8_lossy(self.0))
            }
        }

        impl xdr::XdrEncode for $name<'_> {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_opaque(self.0);
            }
        }

        impl<'a> xdr::XdrDecode<'a> for $name<'a> {
            fn decode(r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                Ok($name(r.get_opaque($what, $max)?))
            }
        }
    };
}

/// Declares a fixed-size opaque (`opaque x[N]`, RFC 4506 §4.9) held as an array.
macro_rules! fixed_opaque {
    ($(#[$meta:meta])* $name:ident, $size:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $name(pub [u8; $size]);

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(concat!(stringify!($name), "("))?;
                for b in &self.0 {
                    write!(f, "{b:02x}")?;
                }
                f.write_str(")")
            }
        }

        impl xdr::XdrEncode for $name {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_opaque_fixed(&self.0);
            }
        }

        impl<'a> xdr::XdrDecode<'a> for $name {
            fn decode(r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                Ok($name(r.get_array()?))
            }
        }
    };
}

/// Declares the argument and result unions of a COMPOUND-style program (`nfs_argop4`/`nfs_resop4`,
/// `nfs_cb_argop4`/`nfs_cb_resop4`): one variant per operation, named as `$num` names it; operations in
/// `void { }` take no arguments. The result union also has `Illegal($illegal)` for `OP_ILLEGAL`. Every
/// `match` over `$num` is exhaustive, so an operation cannot be forgotten in one direction only.
macro_rules! op_table {
    (
        $(#[$ameta:meta])*
        pub enum $args:ident<'a>;
        $(#[$rmeta:meta])*
        pub enum $res:ident<'a> by $num:ident, illegal $illegal:ty;
        void { $( $unit:ident => $urty:ty ),* $(,)? }
        $( $variant:ident($aty:ty) => $rty:ty ),+ $(,)?
    ) => {
        $(#[$ameta])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $args<'a> {
            $( $unit, )*
            $( $variant($aty), )+
        }

        $(#[$rmeta])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $res<'a> {
            $( $unit($urty), )*
            $( $variant($rty), )+
            /// `OP_ILLEGAL` (10044): the answer to an operation number the server does not know.
            Illegal($illegal),
        }

        impl<'a> $args<'a> {
            /// Decodes the arguments of `op` from `r`. `op` must not be `Illegal`, which has no arguments
            /// union arm worth keeping: the caller answers it before decoding.
            pub fn decode_body(op: $num, r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                Ok(match op {
                    $( $num::$unit => $args::$unit, )*
                    $( $num::$variant => $args::$variant(<$aty as xdr::XdrDecode<'a>>::decode(r)?), )+
                    $num::Illegal => return Err(r.invalid("arguments of OP_ILLEGAL")),
                })
            }

            /// The operation these arguments belong to.
            pub const fn op(&self) -> $num {
                match self {
                    $( $args::$unit => $num::$unit, )*
                    $( $args::$variant(_) => $num::$variant, )+
                }
            }

            /// The operation's RFC name, e.g. `"SEQUENCE"`.
            pub const fn name(&self) -> &'static str {
                self.op().name()
            }
        }

        impl xdr::XdrEncode for $args<'_> {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_u32(self.op().as_u32());
                match self {
                    $( $args::$unit => {} )*
                    $( $args::$variant(v) => v.encode(w), )+
                }
            }
        }

        impl<'a> xdr::XdrDecode<'a> for $args<'a> {
            /// The operation number then its arguments; `OP_ILLEGAL` and unknown numbers are
            /// `BadDiscriminant`.
            fn decode(r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                let offset = r.position();
                let op = <$num as xdr::XdrDecode<'a>>::decode(r)?;
                if op == $num::Illegal {
                    return Err(xdr::XdrError::BadDiscriminant { what: stringify!($num), value: op.as_u32(), offset });
                }
                Self::decode_body(op, r)
            }
        }

        impl<'a> $res<'a> {
            /// Decodes the result of `op` from `r`.
            pub fn decode_body(op: $num, r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                Ok(match op {
                    $( $num::$unit => $res::$unit(<$urty as xdr::XdrDecode<'a>>::decode(r)?), )*
                    $( $num::$variant => $res::$variant(<$rty as xdr::XdrDecode<'a>>::decode(r)?), )+
                    $num::Illegal => $res::Illegal(<$illegal as xdr::XdrDecode<'a>>::decode(r)?),
                })
            }

            /// The result of `op` failing with `err`: what a server puts in the result array for the
            /// operation that ended the COMPOUND (RFC 8881 §15.2), including `OP_ILLEGAL`.
            pub fn error(op: $num, err: $crate::status::NfsErr4) -> Self {
                use $crate::status::OpResult;
                match op {
                    $( $num::$unit => $res::$unit(<$urty>::from_error(err)), )*
                    $( $num::$variant => $res::$variant(<$rty>::from_error(err)), )+
                    $num::Illegal => $res::Illegal(<$illegal>::from_error(err)),
                }
            }

            /// The operation this result belongs to.
            pub const fn op(&self) -> $num {
                match self {
                    $( $res::$unit(_) => $num::$unit, )*
                    $( $res::$variant(_) => $num::$variant, )+
                    $res::Illegal(_) => $num::Illegal,
                }
            }

            /// The operation's RFC name.
            pub const fn name(&self) -> &'static str {
                self.op().name()
            }

            /// The operation's status word.
            pub fn status(&self) -> $crate::status::NfsStat4 {
                use $crate::status::OpResult;
                match self {
                    $( $res::$unit(v) => v.status(), )*
                    $( $res::$variant(v) => v.status(), )+
                    $res::Illegal(v) => v.status(),
                }
            }
        }

        impl xdr::XdrEncode for $res<'_> {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_u32(self.op().as_u32());
                match self {
                    $( $res::$unit(v) => v.encode(w), )*
                    $( $res::$variant(v) => v.encode(w), )+
                    $res::Illegal(v) => v.encode(w),
                }
            }
        }

        impl<'a> xdr::XdrDecode<'a> for $res<'a> {
            /// The operation number then its result.
            fn decode(r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                let op = <$num as xdr::XdrDecode<'a>>::decode(r)?;
                Self::decode_body(op, r)
            }
        }
    };
}
