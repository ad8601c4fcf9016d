//! Built for an API version the host does not speak. The host must refuse
//! it with "incompatible: built for amber:plugin@0.2.0, host speaks @0.1.0"
//! before running any of its code.
wit_bindgen::generate!({
    inline: "
        package amber:plugin@0.2.0;

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
