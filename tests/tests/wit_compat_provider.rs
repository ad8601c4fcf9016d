//! The 0.1 compatibility probe's provider (`fixtures/wit-compat/0.1.0/
//! compat-rust.wasm`) through the real runtime and the 0.1 adapter: a
//! request, a stream and an error class cross it in both directions. The
//! CLI's `wit_compat` tests reach its other kinds through their front
//! doors; a dialect has none without a vendor that speaks the probe's
//! wire.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::ports::dialect::{ChatRequest, Message, Role, SseEvent, StopReason, ToolDecl};
use amber_runtime::Grants;
use amber_tests::{decode_all, repo_root, Scratch};

fn event(data: &str) -> SseEvent {
    SseEvent {
        event: None,
        data: data.to_string(),
    }
}

#[test]
fn a_0_1_provider_builds_decodes_and_classifies_through_the_adapter() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let probe = repo_root().join("fixtures/wit-compat/0.1.0/compat-rust.wasm");
    let (id, _) = runtime.register_file(&probe).unwrap();
    runtime.enable(&id, Grants::none()).unwrap();
    let status = runtime.status(&id).unwrap();
    assert_eq!(status.api.to_string(), "0.1.0");
    assert!(status.adapter);
    let dialect = runtime.ledger().provider("compat-probe").unwrap();

    let request = ChatRequest {
        flavor: "compat-probe".into(),
        model: "m1".into(),
        messages: vec![
            Message::text(Role::System, "be brief"),
            Message::text(Role::User, "Say hi."),
        ],
        tools: vec![ToolDecl {
            name: "read_file".into(),
            description: "Reads.".into(),
            input_schema: serde_json::json!({"type": "object"}),
        }],
        max_tokens: Some(10),
        temperature: None,
        cache_breakpoint: None,
    };
    let http = dialect.build_request(&request).unwrap();
    assert_eq!(
        (http.method.as_str(), http.path.as_str()),
        ("POST", "/probe")
    );
    assert_eq!(http.headers, vec![("x-probe".to_string(), "1".to_string())]);
    assert_eq!(
        http.body,
        r#"{"last":"Say hi.","messages":2,"model":"m1","tools":["read_file"]}"#
    );

    let events = [event("Hel"), event("lo"), event("[DONE]")];
    for batch in [1, 3] {
        let decoded = decode_all(&*dialect, &events, batch);
        assert_eq!(decoded.text, "Hello");
        let usage = decoded.usage.unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (1, 2));
        assert_eq!(decoded.stop, Some(StopReason::EndTurn));
    }

    let class = dialect.classify_error(429, "slow").unwrap();
    assert!(class.retryable);
    assert_eq!(class.message, "probe 429: slow");
    assert!(!dialect.classify_error(400, "bad").unwrap().retryable);
}
