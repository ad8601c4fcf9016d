//! Built for an API version the host does not speak. The host must refuse
//! it before running any of its code, naming both versions: "incompatible:
//! built for amber:plugin@9.0.0; this host speaks @0.2.0, …".
wit_bindgen::generate!({
    inline: "
        package amber:plugin@9.0.0;

        interface plugin {
            manifest: func() -> string;
        }

        world future-plugin {
            export plugin;
        }
    ",
});

struct Future;

impl exports::amber::plugin::plugin::Guest for Future {
    fn manifest() -> String {
        "from the future".into()
    }
}

export!(Future);
