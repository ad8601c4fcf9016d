//! The task tool with a scripted model: a sub-agent runs under its own
//! view of the policy, which a change of its parent's mode does not
//! loosen, and reports its events tagged with its id.

use std::sync::Arc;

use serde_json::{json, Value};

use super::*;
use crate::compress::pipeline::fake::{text, FakeModel, Reply};
use crate::engine::side_events::side_channel;
use crate::policy::Mode;
use crate::ports::dialect::ToolCall;
use crate::ports::ThresholdGate;

/// A tool that does what it is given, spec'd as asked.
struct Doing {
    spec: ToolSpec,
    does: Box<dyn Fn() + Send + Sync>,
}

impl Tool for Doing {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn call(&self, _args: &Value) -> Result<ToolOutput, ToolError> {
        (self.does)();
        Ok(ToolOutput {
            content: "done".into(),
            meta: None,
            images: Vec::new(),
        })
    }
}

fn doing(name: &str, read_only: bool, does: impl Fn() + Send + Sync + 'static) -> Arc<dyn Tool> {
    Arc::new(Doing {
        spec: ToolSpec {
            name: name.into(),
            description: name.into(),
            input_schema: json!({"type": "object"}),
            read_only,
            gated_by_exec: false,
            approval_group: None,
        },
        does: Box::new(does),
    })
}

fn call(id: &str, name: &str) -> Reply {
    Reply::Calls(vec![ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: "{}".into(),
    }])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parent_switched_to_yolo_does_not_loosen_a_running_read_only_sub_agent() {
    let parent = Arc::new(Policy::new(Mode::Write, "/ws".into(), Vec::new(), None));
    let loosen = {
        let parent = parent.clone();
        doing("set_yolo", true, move || parent.set_mode(Mode::Yolo))
    };
    let poke = doing("poke", false, || {});
    let model = Arc::new(FakeModel::new(
        vec![
            call("c1", "set_yolo"),
            call("c2", "poke"),
            text("could not poke"),
        ],
        10,
    ));
    let (events, mut received) = side_channel();
    let auditor = profile("auditor", None, Some(Mode::Read));
    let context = context(
        model,
        vec![loosen, poke],
        parent.clone(),
        vec![auditor],
        events,
    );
    let task = Arc::new(TaskTool::new(context, Execution::Serial));
    let args = json!({"prompt": "poke it", "agent": "auditor"});
    let out = tokio::task::spawn_blocking(move || task.call(&args))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.content, "could not poke");
    assert_eq!(parent.mode(), Mode::Yolo, "the parent did switch");
    let mut seen = Vec::new();
    while let Ok(event) = received.0.try_recv() {
        seen.push(event);
    }
    let started = seen.iter().find_map(|e| match e {
        AgentEvent::SubAgentStarted { agent, mode, .. } => Some((agent.clone(), mode.clone())),
        _ => None,
    });
    assert_eq!(started, Some(("task-1".into(), "read".into())));
    let poked = seen.iter().find_map(|e| match e {
        AgentEvent::SubAgent { agent, event } if agent == "task-1" => match event.as_ref() {
            AgentEvent::ToolResult {
                name,
                status,
                output,
                ..
            } if name == "poke" => Some((*status, output.clone())),
            _ => None,
        },
        _ => None,
    });
    let (status, output) = poked.expect("the sub-agent's poke result, tagged");
    assert_eq!(status, crate::engine::Status::Denied);
    assert!(output.contains("read mode"), "{output}");
    assert!(matches!(
        seen.last(),
        Some(AgentEvent::SubAgentFinished { outcome, .. }) if outcome == "done"
    ));
}

/// A task context over `model` and `tools`, with settings any test takes.
fn context(
    model: Arc<FakeModel>,
    tools: Vec<Arc<dyn Tool>>,
    policy: Arc<Policy>,
    profiles: Vec<AgentProfile>,
    events: SideSender,
) -> TaskContext {
    TaskContext {
        config: AgentConfig {
            model: "m".into(),
            flavor: "openai-chat".into(),
            context_window: 1000,
            max_tool_iterations: 10,
            confirm: None,
            max_tokens: None,
            temperature: None,
            system_prompt: String::new(),
            workspace: None,
            price: None,
            max_budget_usd: None,
            images: false,
            preset: "test".into(),
        },
        model,
        tools,
        ledger: None,
        tool_search: None,
        tool_uses: None,
        blocks: Vec::new(),
        policy,
        gate: Arc::new(ThresholdGate { threshold: 0.8 }),
        max_iterations: 5,
        interrupt: Interrupt::default(),
        reads: None,
        hooks: None,
        profiles,
        models: None,
        sessions: None,
        events,
        started: Default::default(),
        image_prep: None,
    }
}

fn profile(name: &str, tools: Option<&[&str]>, mode: Option<Mode>) -> AgentProfile {
    AgentProfile {
        name: name.into(),
        description: "reads".into(),
        tools: tools.map(|t| t.iter().map(|n| n.to_string()).collect()),
        model: None,
        mode,
        max_iterations: None,
        from_workspace: true,
        commands: None,
        system_prompt: "Audit.".into(),
        source: format!("{name}.md"),
    }
}

fn declared(request: &crate::ports::dialect::ChatRequest) -> Vec<String> {
    request.tools.iter().map(|t| t.name.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_is_offered_the_ledgers_late_tools_its_agent_file_allows() {
    // Installed before the task starts, and while it runs: the sub-agent
    // is offered each from its next request, but never the one its
    // file's `tools` leave out.
    let ledger = Arc::new(crate::Ledger::new());
    let owner = crate::ledger::Owner::Mcp("slow".into());
    let install = |name: &'static str| {
        let ledger = ledger.clone();
        let owner = owner.clone();
        move || {
            ledger
                .install(
                    &owner,
                    crate::ledger::Service::Tool(doing(name, true, || {})),
                )
                .unwrap();
        }
    };
    ledger
        .install(
            &owner,
            crate::ledger::Service::Tool(doing("early", true, || {})),
        )
        .unwrap();
    let arrive = doing("arrive", true, {
        let (late, refused) = (install("late"), install("refused"));
        move || {
            late();
            refused();
        }
    });
    let model = Arc::new(FakeModel::new(
        vec![call("c1", "arrive"), call("c2", "late"), text("looked")],
        10,
    ));
    let policy = Arc::new(Policy::new(Mode::Write, "/ws".into(), Vec::new(), None));
    let narrow = profile("reader", Some(&["arrive", "early", "late"]), None);
    let (events, _received) = side_channel();
    let mut context = context(model.clone(), vec![arrive], policy, vec![narrow], events);
    context.ledger = Some(ledger.clone());
    let task = Arc::new(TaskTool::new(context, Execution::Serial));
    let args = json!({"prompt": "look", "agent": "reader"});
    let out = tokio::task::spawn_blocking(move || task.call(&args))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(out.content, "looked");
    let sent = model.sent();
    assert_eq!(declared(&sent[0]), ["arrive", "early"]);
    assert_eq!(declared(&sent[1]), ["arrive", "early", "late"]);
    assert_eq!(declared(&sent[2]), ["arrive", "early", "late"]);
}
