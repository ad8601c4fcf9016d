//! The config parser on any file: no panic, and an error always names the
//! file, as every config error the user sees must.
#![no_main]

use std::path::Path;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("/home/u/.amber/config.toml");
    if let Err(e) = amber_config::Config::parse(text, path) {
        let message = e.to_string();
        assert!(
            message.contains("config.toml"),
            "the error does not name the file: {message}"
        );
    }
});
