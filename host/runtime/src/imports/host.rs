//! `amber:plugin/host`: logging and plugin-scoped settings. Needs no grant.

use crate::bindings::amber::plugin::host::Host;
use crate::bindings::types::LogLevel;
use crate::instance::HostState;

/// One log call longer than this is cut.
const MAX_LOG_MESSAGE: usize = 8 * 1024;

fn level_name(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Trace => "trace",
        LogLevel::Debug => "debug",
        LogLevel::Info => "info",
        LogLevel::Warn => "warn",
        LogLevel::Error => "error",
    }
}

impl Host for HostState {
    fn log(&mut self, level: LogLevel, mut message: String) {
        if message.len() > MAX_LOG_MESSAGE {
            let mut cut = MAX_LOG_MESSAGE;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            message.truncate(cut);
            message.push_str(" [cut]");
        }
        self.plugin.log.line(level_name(level), &message);
    }

    fn setting(&mut self, key: String) -> Option<String> {
        self.plugin.settings.get(&key).cloned()
    }
}
