//! Declarative helpers the protocol crates (`nfs3-proto`, `nfs4-proto`) write their XDR types with, so
//! the RFCs' definitions stay readable: a struct is its fields in order (RFC 4506 §4.14), an enum is one
//! list of values (§4.3), a status is one list with its failure companion.

/// Declares a struct whose XDR encoding is its fields in declaration order (RFC 4506 §4.14), with
/// `XdrEncode` and `XdrDecode`. Every field type must implement both traits.
#[macro_export]
macro_rules! xdr_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident<$lt:lifetime> { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),+ $(,)? }
    ) => {
        $(#[$meta])*
        pub struct $name<$lt> { $( $(#[$fmeta])* pub $field: $ty ),+ }

        impl<$lt> $crate::XdrEncode for $name<$lt> {
            fn encode<'p>(&'p self, w: &mut $crate::XdrWriter<'p>) {
                $( $crate::XdrEncode::encode(&self.$field, w); )+
            }
        }

        impl<$lt> $crate::XdrDecode<$lt> for $name<$lt> {
            fn decode(r: &mut $crate::XdrReader<$lt>) -> Result<Self, $crate::XdrError> {
                Ok($name { $( $field: <$ty as $crate::XdrDecode<$lt>>::decode(r)? ),+ })
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),+ $(,)? }
    ) => {
        $(#[$meta])*
        pub struct $name { $( $(#[$fmeta])* pub $field: $ty ),+ }

        impl $crate::XdrEncode for $name {
            fn encode<'p>(&'p self, w: &mut $crate::XdrWriter<'p>) {
                $( $crate::XdrEncode::encode(&self.$field, w); )+
            }
        }

        impl<'de> $crate::XdrDecode<'de> for $name {
            fn decode(r: &mut $crate::XdrReader<'de>) -> Result<Self, $crate::XdrError> {
                Ok($name { $( $field: <$ty as $crate::XdrDecode<'de>>::decode(r)? ),+ })
            }
        }
    };
}

/// Declares a plain wire enum (`enum` in XDR, RFC 4506 §4.3) with `from_u32`, `as_u32`, `name` and the
/// XDR traits. Decoding an undefined value is `XdrError::BadDiscriminant` naming `$what`.
#[macro_export]
macro_rules! xdr_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident as $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $vname:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

        impl $crate::XdrEncode for $name {
            fn encode<'p>(&'p self, w: &mut $crate::XdrWriter<'p>) {
                w.put_u32(self.as_u32());
            }
        }

        impl<'de> $crate::XdrDecode<'de> for $name {
            fn decode(r: &mut $crate::XdrReader<'de>) -> Result<Self, $crate::XdrError> {
                r.get_enum($what, $name::from_u32)
            }
        }
    };
}

/// Declares a wire status enum with every value (`$stat`, including `Ok = 0`) and its companion enum of
/// every failure value (`$err`, no `Ok`), so a result's failure arm cannot carry the success status.
#[macro_export]
macro_rules! wire_status {
    (
        $(#[$smeta:meta])*
        pub enum $stat:ident as $what:literal { Ok = 0 => $ok_name:literal }
        $(#[$emeta:meta])*
        pub enum $err:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $vname:literal, )+
        }
    ) => {
        $crate::xdr_enum! {
            $(#[$smeta])*
            pub enum $stat as $what {
                /// Success.
                Ok = 0 => $ok_name,
                $( $(#[$vmeta])* $variant = $value => $vname, )+
            }
        }

        $(#[$emeta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

        impl std::fmt::Display for $err {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::fmt::Display for $stat {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl $crate::XdrEncode for $err {
            fn encode<'p>(&'p self, w: &mut $crate::XdrWriter<'p>) {
                w.put_u32(self.as_u32());
            }
        }

        impl<'de> $crate::XdrDecode<'de> for $err {
            fn decode(r: &mut $crate::XdrReader<'de>) -> Result<Self, $crate::XdrError> {
                r.get_enum($what, $err::from_u32)
            }
        }
    };
}
