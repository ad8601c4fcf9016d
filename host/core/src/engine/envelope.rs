//! The feedback envelope: what the model reads for every tool call,
//! whether it ran, failed or was denied. Seed: "Tool dispatch".

use serde::{Deserialize, Serialize};

use crate::ports::dialect::ToolResult;
use crate::ports::{ToolError, ToolOutput};
use crate::session::INTERRUPTED;

pub use amber_protocol::Status;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub status: Status,
    pub output: String,
    pub meta: Option<serde_json::Value>,
    /// The images the tool returned: parts of the tool message after its
    /// result, not of the JSON text the model reads.
    #[serde(skip)]
    pub images: Vec<crate::ports::Image>,
}

impl Envelope {
    pub fn ok(output: ToolOutput) -> Self {
        Envelope {
            status: Status::Ok,
            output: output.content,
            meta: output.meta,
            images: output.images,
        }
    }

    pub fn error(message: impl Into<String>) -> Self {
        Envelope {
            status: Status::Error,
            output: message.into(),
            meta: None,
            images: Vec::new(),
        }
    }

    pub fn denied(reason: impl Into<String>) -> Self {
        Envelope {
            status: Status::Denied,
            output: reason.into(),
            meta: None,
            images: Vec::new(),
        }
    }

    pub fn interrupted() -> Self {
        Envelope::error(INTERRUPTED)
    }

    pub fn from_tool(result: Result<ToolOutput, ToolError>) -> Self {
        match result {
            Ok(output) => Envelope::ok(output),
            Err(e) => Envelope::error(e.to_string()),
        }
    }

    /// The tool-role result the model reads: the envelope as JSON text.
    pub fn to_result(&self, call_id: &str) -> ToolResult {
        ToolResult {
            call_id: call_id.to_string(),
            // A struct of strings and a JSON value always serialises.
            content: serde_json::to_string(self).unwrap_or_default(),
            is_error: self.status != Status::Ok,
        }
    }
}
