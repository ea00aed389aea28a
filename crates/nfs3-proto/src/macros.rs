//! Declarative helpers of NFSv3 and MOUNT: a dispatch enum is one list of procedures (structs, enums and
//! statuses are the `xdr` crate's `xdr_struct!`, `xdr_enum!` and `wire_status!`).

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
