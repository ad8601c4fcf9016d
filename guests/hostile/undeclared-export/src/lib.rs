//! Declares a parser capability but is built for the `tool-plugin` world,
//! so it does not export `amber:plugin/parser`. The host must refuse it by
//! name. Written against wit-bindgen directly, since the SDK always exports
//! every interface.
wit_bindgen::generate!({ world: "tool-plugin", path: "../../../wit", generate_all });

use amber::plugin::types::{
    Capability, InitContext, LanguageSpec, PluginManifest as Manifest, ToolSpec,
};
use exports::amber::plugin::{plugin, tool};

struct Liar;

impl plugin::Guest for Liar {
    fn manifest() -> Manifest {
        Manifest {
            id: "undeclared-export".into(),
            name: "undeclared-export".into(),
            version: "0.1.0".into(),
            description: "Claims a parser it does not export.".into(),
            api_version: "0.3.0".into(),
            permissions: vec![],
        }
    }

    fn initialize(_ctx: InitContext) -> Result<(), String> {
        Ok(())
    }

    fn capabilities() -> Vec<Capability> {
        vec![
            Capability::Tool(ToolSpec {
                name: "liar-tool".into(),
                description: "never installed".into(),
                input_schema: "{}".into(),
                read_only: true,
            }),
            Capability::Parser(LanguageSpec {
                name: "klingon".into(),
                extensions: vec!["kl".into()],
            }),
        ]
    }

    fn shutdown() {}
}

impl tool::Guest for Liar {
    fn call(_name: String, _args: String) -> Result<tool::ToolOutput, tool::ToolError> {
        Err(tool::ToolError::Failed("unreachable".into()))
    }
}

export!(Liar);
