//! Wire enums of the protocol stored as their wire names (`TEXT`): the protocol crate knows
//! nothing of SQL, and a name is written in one place, its `wire_enum!`.

use antler_protocol::wire_enum::WireEnum;
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Postgres, Sqlite, Type};

/// A wire enum as a `TEXT` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wire<T>(pub(crate) T);

macro_rules! text_for {
    ($db:ty) => {
        impl<T: WireEnum> Type<$db> for Wire<T> {
            fn type_info() -> <$db as Database>::TypeInfo {
                <&str as Type<$db>>::type_info()
            }

            fn compatible(ty: &<$db as Database>::TypeInfo) -> bool {
                <&str as Type<$db>>::compatible(ty)
            }
        }

        impl<'q, T: WireEnum> Encode<'q, $db> for Wire<T> {
            fn encode_by_ref(
                &self,
                buf: &mut <$db as Database>::ArgumentBuffer<'q>,
            ) -> Result<IsNull, BoxDynError> {
                <&str as Encode<'q, $db>>::encode(self.0.wire_name(), buf)
            }
        }

        impl<'r, T: WireEnum> Decode<'r, $db> for Wire<T> {
            fn decode(value: <$db as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
                let text = <&str as Decode<'r, $db>>::decode(value)?;
                Ok(Wire(T::from_wire(text)?))
            }
        }
    };
}

text_for!(Sqlite);
text_for!(Postgres);
