//! Host bindings generated from the latest version's `full-plugin` world,
//! the union of every capability. Exports are looked up one interface at
//! a time (`GuestIndices::new`), so a plugin exporting only some of them
//! loads. Older versions have bindings of their own in `crate::api`,
//! converted to these types.

wasmtime::component::bindgen!({
    world: "full-plugin",
    path: "../../wit",
    // Declarations are cached as JSON (see `declarations`).
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use amber::plugin::types;
pub use exports::amber::plugin::{command, hook, parser, plugin, prompt, provider, tool};
