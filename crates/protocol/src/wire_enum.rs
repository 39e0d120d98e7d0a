//! String-valued enums of the wire protocol, declared once with their wire names.

/// Declares a fieldless enum that travels as a lowercase string: serde, OpenAPI, `as_str`,
/// `Display`, `FromStr` and [`WireEnum`] (which the store uses to keep it as `TEXT`), all
/// from one list of `Variant = "wire-name"` pairs, so a name is never written twice.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:tt ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize,
            serde::Deserialize, utoipa::ToSchema,
        )]
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[serde(rename = $wire)]
                $variant,
            )+
        }

        impl crate::wire_enum::WireEnum for $name {
            fn wire_name(self) -> &'static str {
                self.as_str()
            }

            fn from_wire(s: &str) -> Result<Self, crate::wire_enum::UnknownValue> {
                s.parse()
            }
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = crate::wire_enum::UnknownValue;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($wire => Ok($name::$variant),)+
                    _ => Err(crate::wire_enum::UnknownValue {
                        kind: stringify!($name),
                        value: s.to_string(),
                        expected: &[$($wire),+],
                    }),
                }
            }
        }
    };
}

pub(crate) use wire_enum;

/// An enum that travels (and is stored) by its wire name; implemented by [`wire_enum!`].
pub trait WireEnum: Sized + Copy + Send + Sync + 'static {
    /// The wire name.
    fn wire_name(self) -> &'static str;
    /// The value a wire name names.
    fn from_wire(s: &str) -> Result<Self, UnknownValue>;
}

/// A string that names no value of a wire enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The enum's name.
    pub kind: &'static str,
    /// What was given.
    pub value: String,
    /// The accepted names.
    pub expected: &'static [&'static str],
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is not a valid {}; expected one of {}",
            self.value,
            self.kind,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownValue {}
