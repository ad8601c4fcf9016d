//! Host bindings generated from the `full-plugin` world, the union of every
//! capability. Exports are looked up one interface at a time
//! (`GuestIndices::new`), so a plugin exporting only some of them loads.

wasmtime::component::bindgen!({
    world: "full-plugin",
    path: "../../wit",
    // Declarations are cached as JSON (see `declarations`).
    additional_derives: [serde::Serialize, serde::Deserialize],
});

pub use amber::plugin::types;
pub use exports::amber::plugin::{command, hook, parser, plugin, prompt, provider, tool};
