//! Conversions between two versions' generated types.
//!
//! Each version's bindings generate their own Rust types, even where the
//! WIT is the same, so an adapter converts every value that crosses it.
//! [`Adapt`] is that conversion; the macros write it for a record, an
//! enum or a variant whose shape is the same in both versions, in both
//! directions. Both sides are named in full, so when a later version
//! changes a type, the macro no longer compiles for it and its adapter
//! gets a conversion written by hand (a new field defaulted, a new case
//! mapped down).

/// Converts a value of one version's type to another version's.
pub trait Adapt<T> {
    fn adapt(self) -> T;
}

/// Types that are the same in every version.
macro_rules! adapt_as_is {
    ($($t:ty),* $(,)?) => {
        $(impl Adapt<$t> for $t {
            fn adapt(self) -> $t {
                self
            }
        })*
    };
}

adapt_as_is!(
    String,
    bool,
    u8,
    u16,
    u32,
    u64,
    i32,
    f32,
    (),
    wasmtime::component::ResourceAny
);

impl<A: Adapt<B>, B> Adapt<Vec<B>> for Vec<A> {
    fn adapt(self) -> Vec<B> {
        self.into_iter().map(Adapt::adapt).collect()
    }
}

impl<A: Adapt<B>, B> Adapt<Option<B>> for Option<A> {
    fn adapt(self) -> Option<B> {
        self.map(Adapt::adapt)
    }
}

impl<A: Adapt<B>, B, E: Adapt<F>, F> Adapt<Result<B, F>> for Result<A, E> {
    fn adapt(self) -> Result<B, F> {
        self.map(Adapt::adapt).map_err(Adapt::adapt)
    }
}

impl<A: Adapt<C>, B: Adapt<D>, C, D> Adapt<(C, D)> for (A, B) {
    fn adapt(self) -> (C, D) {
        (self.0.adapt(), self.1.adapt())
    }
}

/// A record with the same fields in both versions, both ways. Every field
/// is named on both sides, so a field one side gains stops the build.
macro_rules! adapt_record {
    ($a:ty, $b:ty { $($field:ident),* $(,)? }) => {
        adapt_record!(@one $a => $b { $($field),* });
        adapt_record!(@one $b => $a { $($field),* });
    };
    (@one $from:ty => $to:ty { $($field:ident),* }) => {
        impl $crate::api::adapt::Adapt<$to> for $from {
            fn adapt(self) -> $to {
                type To = $to;
                let Self { $($field),* } = self;
                To { $($field: $crate::api::adapt::Adapt::adapt($field)),* }
            }
        }
    };
}

/// An enum or variant with the same cases in both versions, both ways. A
/// case with a payload names it: `Case(v)`.
macro_rules! adapt_cases {
    ($a:ty, $b:ty { $($case:ident $(($payload:ident))?),* $(,)? }) => {
        adapt_cases!(@one $a => $b { $($case $(($payload))?),* });
        adapt_cases!(@one $b => $a { $($case $(($payload))?),* });
    };
    (@one $from:ty => $to:ty { $($case:ident $(($payload:ident))?),* }) => {
        impl $crate::api::adapt::Adapt<$to> for $from {
            fn adapt(self) -> $to {
                type To = $to;
                match self {
                    $(Self::$case $(($payload))? =>
                        To::$case $(($crate::api::adapt::Adapt::adapt($payload)))?,)*
                }
            }
        }
    };
}

pub(crate) use {adapt_cases, adapt_record};
