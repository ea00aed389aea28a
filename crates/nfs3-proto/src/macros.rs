//! Declarative helpers that keep the RFC's XDR definitions readable: a struct is its fields in order
//! (RFC 4506 §4.14), a status enum is one list of values, a dispatch enum is one list of procedures.

/// Declares a struct whose XDR encoding is its fields in declaration order (RFC 4506 §4.14: structures),
/// with `XdrEncode` and `XdrDecode`. Every field type must implement both traits.
macro_rules! xdr_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident<$lt:lifetime> { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),+ $(,)? }
    ) => {
        $(#[$meta])*
        pub struct $name<$lt> { $( $(#[$fmeta])* pub $field: $ty ),+ }

        impl<$lt> xdr::XdrEncode for $name<$lt> {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                $( xdr::XdrEncode::encode(&self.$field, w); )+
            }
        }

        impl<$lt> xdr::XdrDecode<$lt> for $name<$lt> {
            fn decode(r: &mut xdr::XdrReader<$lt>) -> Result<Self, xdr::XdrError> {
                Ok($name { $( $field: <$ty as xdr::XdrDecode<$lt>>::decode(r)? ),+ })
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),+ $(,)? }
    ) => {
        $(#[$meta])*
        pub struct $name { $( $(#[$fmeta])* pub $field: $ty ),+ }

        impl xdr::XdrEncode for $name {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                $( xdr::XdrEncode::encode(&self.$field, w); )+
            }
        }

        impl<'de> xdr::XdrDecode<'de> for $name {
            fn decode(r: &mut xdr::XdrReader<'de>) -> Result<Self, xdr::XdrError> {
                Ok($name { $( $field: <$ty as xdr::XdrDecode<'de>>::decode(r)? ),+ })
            }
        }
    };
}

/// Declares a plain wire enum (`enum` in XDR, RFC 4506 §4.3) with `from_u32`, `name` and the XDR traits.
/// Decoding an undefined value is `XdrError::BadDiscriminant` naming `$what`.
macro_rules! xdr_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident as $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $vname:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum $name { $( $(#[$vmeta])* $variant = $value, )+ }

        impl $name {
            /// Every value, in RFC order.
            pub const ALL: &'static [$name] = &[$( $name::$variant ),+];

            /// The variant for a wire value, `None` when the RFC defines no such value.
            pub const fn from_u32(value: u32) -> Option<Self> {
                match value {
                    $( $value => Some($name::$variant), )+
                    _ => None,
                }
            }

            /// The wire value.
            pub const fn as_u32(self) -> u32 {
                self as u32
            }

            /// The RFC's name for the value.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $vname, )+
                }
            }
        }

        impl xdr::XdrEncode for $name {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_u32(self.as_u32());
            }
        }

        impl<'de> xdr::XdrDecode<'de> for $name {
            fn decode(r: &mut xdr::XdrReader<'de>) -> Result<Self, xdr::XdrError> {
                r.get_enum($what, $name::from_u32)
            }
        }
    };
}

/// Declares a wire status enum with every value (`$stat`, including `Ok = 0`) and its companion enum of
/// every failure value (`$err`, no `Ok`), so a result's failure arm cannot carry the success status.
macro_rules! wire_status {
    (
        $(#[$smeta:meta])*
        pub enum $stat:ident as $what:literal { Ok = 0 => $ok_name:literal }
        $(#[$emeta:meta])*
        pub enum $err:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $vname:literal, )+
        }
    ) => {
        xdr_enum! {
            $(#[$smeta])*
            pub enum $stat as $what {
                /// Success.
                Ok = 0 => $ok_name,
                $( $(#[$vmeta])* $variant = $value => $vname, )+
            }
        }

        $(#[$emeta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum $err { $( $(#[$vmeta])* $variant = $value, )+ }

        impl $stat {
            /// `None` for success, else the failure.
            pub const fn error(self) -> Option<$err> {
                match self {
                    $stat::Ok => None,
                    $( $stat::$variant => Some($err::$variant), )+
                }
            }

            pub const fn is_ok(self) -> bool {
                matches!(self, $stat::Ok)
            }
        }

        impl $err {
            /// Every failure value, in RFC order.
            pub const ALL: &'static [$err] = &[$( $err::$variant ),+];

            /// The failure for a wire value; `None` for success and for undefined values.
            pub const fn from_u32(value: u32) -> Option<Self> {
                match value {
                    $( $value => Some($err::$variant), )+
                    _ => None,
                }
            }

            pub const fn as_u32(self) -> u32 {
                self as u32
            }

            pub const fn status(self) -> $stat {
                match self {
                    $( $err::$variant => $stat::$variant, )+
                }
            }

            /// The RFC's name for the value.
            pub const fn name(self) -> &'static str {
                self.status().name()
            }
        }

        impl From<$err> for $stat {
            fn from(e: $err) -> $stat {
                e.status()
            }
        }

        impl xdr::XdrEncode for $err {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_u32(self.as_u32());
            }
        }

        impl<'de> xdr::XdrDecode<'de> for $err {
            fn decode(r: &mut xdr::XdrReader<'de>) -> Result<Self, xdr::XdrError> {
                r.get_enum($what, $err::from_u32)
            }
        }
    };
}

/// Declares a whole-message dispatch enum over a program's procedures: one variant per procedure, named as
/// the `$proc` enum names it, unit for `void` bodies. Generates `decode`, `decode_body`, `proc`,
/// `procedure`, `name` and `XdrEncode`. The `match` over `$proc` is exhaustive, so a procedure cannot be
/// forgotten.
macro_rules! dispatch_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident<'a> by $proc:ident {
            void { $( $(#[$umeta:meta])* $unit:ident ),* $(,)? }
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name<'a> {
            $( $(#[$umeta])* $unit, )*
            $( $(#[$vmeta])* $variant($ty), )+
        }

        impl<'a> $name<'a> {
            /// Decodes a whole body for procedure number `proc`. Trailing bytes are rejected; an undefined
            /// procedure number is [`DecodeError::UnknownProcedure`](crate::DecodeError::UnknownProcedure)
            /// (answer PROC_UNAVAIL), anything else malformed is
            /// [`DecodeError::Xdr`](crate::DecodeError::Xdr) (answer GARBAGE_ARGS).
            pub fn decode(proc: u32, body: &'a [u8]) -> Result<Self, crate::DecodeError> {
                let proc = $proc::from_u32(proc).ok_or(crate::DecodeError::UnknownProcedure(proc))?;
                let mut r = xdr::XdrReader::new(body);
                let value = Self::decode_body(proc, &mut r)?;
                r.finish()?;
                Ok(value)
            }

            /// Decodes the body of `proc` from `r`, leaving whatever follows unread.
            pub fn decode_body(proc: $proc, r: &mut xdr::XdrReader<'a>) -> Result<Self, xdr::XdrError> {
                Ok(match proc {
                    $( $proc::$unit => $name::$unit, )*
                    $( $proc::$variant => $name::$variant(<$ty as xdr::XdrDecode<'a>>::decode(r)?), )+
                })
            }

            /// The procedure this body belongs to.
            pub const fn proc(&self) -> $proc {
                match self {
                    $( $name::$unit => $proc::$unit, )*
                    $( $name::$variant(_) => $proc::$variant, )+
                }
            }

            /// The procedure number.
            pub const fn procedure(&self) -> u32 {
                self.proc() as u32
            }

            /// The procedure's RFC name, e.g. `"READDIRPLUS"`.
            pub const fn name(&self) -> &'static str {
                self.proc().name()
            }
        }

        impl xdr::XdrEncode for $name<'_> {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                match self {
                    $( $name::$unit => {} )*
                    $( $name::$variant(v) => v.encode(w), )+
                }
            }
        }
    };
}
