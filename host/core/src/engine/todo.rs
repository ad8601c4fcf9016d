//! The session's todo list: `todo_write` replaces it whole, `todo_read`
//! shows it. It lives in the session (a `todos` record after each change,
//! which a resume restores), is shown to the person as `todo.updated`
//! events, and outlives a compaction: the rebuilt context carries it.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::side_events::SideSender;
use super::AgentEvent;
use crate::ports::{Tool, ToolError, ToolOutput, ToolSpec};
pub use amber_protocol::{Todo, TodoStatus};

pub const TODO_WRITE_TOOL: &str = "todo_write";
pub const TODO_READ_TOOL: &str = "todo_read";
/// Items a list may hold, and characters an item's text may run to.
const MAX_ITEMS: usize = 100;
const MAX_CONTENT: usize = 1_000;

/// The list, shared by its two tools and the agent.
pub struct TodoList {
    items: Mutex<Vec<Todo>>,
    events: SideSender,
}

impl TodoList {
    pub fn new(items: Vec<Todo>, events: SideSender) -> Arc<Self> {
        Arc::new(TodoList {
            items: Mutex::new(items),
            events,
        })
    }

    pub fn items(&self) -> Vec<Todo> {
        self.items.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Replaces the list and reports it.
    fn replace(&self, items: Vec<Todo>) {
        *self.items.lock().unwrap_or_else(|e| e.into_inner()) = items.clone();
        self.events.send(AgentEvent::TodoUpdated { todos: items });
    }

    /// The list as the model reads it; `None` when it is empty.
    pub fn describe(&self) -> Option<String> {
        describe(&self.items())
    }

    /// The two tools over this list.
    pub fn tools(self: &Arc<Self>) -> Vec<Arc<dyn Tool>> {
        vec![
            Arc::new(TodoWrite {
                spec: write_spec(),
                list: self.clone(),
            }),
            Arc::new(TodoRead {
                spec: read_spec(),
                list: self.clone(),
            }),
        ]
    }
}

/// One line per item, `[x]` done, `[~]` in progress, `[ ]` pending.
pub fn describe(items: &[Todo]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let lines: Vec<String> = items
        .iter()
        .map(|t| format!("{} {}: {}", t.status.mark(), t.id, t.content))
        .collect();
    Some(format!(
        "The todo list ([x] done, [~] in progress, [ ] pending):\n{}",
        lines.join("\n")
    ))
}

/// The list `args` asks for, or what is wrong with it, for the model.
fn parse(args: &Value) -> Result<Vec<Todo>, ToolError> {
    let bad = |why: String| ToolError::InvalidArgs(why);
    let items = args["todos"]
        .as_array()
        .ok_or_else(|| bad("`todos` must be a list of {id, content, status}".into()))?;
    if items.len() > MAX_ITEMS {
        return Err(bad(format!(
            "at most {MAX_ITEMS} items; this list has {}",
            items.len()
        )));
    }
    let mut todos: Vec<Todo> = Vec::with_capacity(items.len());
    for (n, item) in items.iter().enumerate() {
        let todo: Todo = serde_json::from_value(item.clone()).map_err(|e| {
            bad(format!(
                "item {} is not {{id, content, status: pending|in_progress|completed}}: {e}",
                n + 1
            ))
        })?;
        if todo.id.trim().is_empty() || todo.content.trim().is_empty() {
            return Err(bad(format!("item {} has an empty id or content", n + 1)));
        }
        if todo.content.chars().count() > MAX_CONTENT {
            return Err(bad(format!(
                "item `{}` is longer than {MAX_CONTENT} characters",
                todo.id
            )));
        }
        if todos.iter().any(|t| t.id == todo.id) {
            return Err(bad(format!("id `{}` is used twice", todo.id)));
        }
        todos.push(todo);
    }
    let working: Vec<&str> = todos
        .iter()
        .filter(|t| t.status == TodoStatus::InProgress)
        .map(|t| t.id.as_str())
        .collect();
    if working.len() > 1 {
        return Err(bad(format!(
            "at most one item may be in_progress; {} are",
            working.join(", ")
        )));
    }
    Ok(todos)
}

fn write_spec() -> ToolSpec {
    ToolSpec {
        name: TODO_WRITE_TOOL.into(),
        description: "Replace the session's todo list with `todos`: the steps of the work \
            and how far each got. Use it for work of three steps or more; keep exactly one \
            item in_progress while you work, and mark items completed as soon as they are \
            done. The person sees the list."
            .into(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "content": {"type": "string"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["id", "content", "status"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        }),
        // It changes the session's list, never the workspace: plan and
        // read mode may keep one.
        read_only: true,
        gated_by_exec: false,
        approval_group: None,
    }
}

fn read_spec() -> ToolSpec {
    ToolSpec {
        name: TODO_READ_TOOL.into(),
        description: "Show the session's todo list.".into(),
        input_schema: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        read_only: true,
        gated_by_exec: false,
        approval_group: None,
    }
}

struct TodoWrite {
    spec: ToolSpec,
    list: Arc<TodoList>,
}

impl Tool for TodoWrite {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let todos = parse(args)?;
        let done = todos
            .iter()
            .filter(|t| t.status == TodoStatus::Completed)
            .count();
        let total = todos.len();
        self.list.replace(todos);
        Ok(ToolOutput {
            content: format!("The todo list is updated: {done} of {total} completed."),
            meta: None,
            images: Vec::new(),
        })
    }
}

struct TodoRead {
    spec: ToolSpec,
    list: Arc<TodoList>,
}

impl Tool for TodoRead {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, _args: &Value) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput {
            content: self
                .list
                .describe()
                .unwrap_or_else(|| "The todo list is empty.".into()),
            meta: None,
            images: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::side_events::side_channel;

    fn todo(id: &str, status: &str) -> Value {
        json!({"id": id, "content": format!("do {id}"), "status": status})
    }

    #[test]
    fn a_write_replaces_the_list_and_reports_it_whole() {
        let (tx, mut rx) = side_channel();
        let list = TodoList::new(Vec::new(), tx);
        let tools = list.tools();
        let out = tools[0]
            .call(&json!({"todos": [todo("a", "completed"), todo("b", "in_progress")]}))
            .unwrap();
        assert_eq!(out.content, "The todo list is updated: 1 of 2 completed.");
        let Ok(AgentEvent::TodoUpdated { todos }) = rx.0.try_recv() else {
            panic!("no todo.updated event")
        };
        assert_eq!(todos.len(), 2);
        assert_eq!(todos[1].status, TodoStatus::InProgress);
        let read = tools[1].call(&json!({})).unwrap().content;
        assert!(read.contains("[x] a: do a\n[~] b: do b"), "{read}");
    }

    #[test]
    fn a_bad_list_is_refused_and_the_old_one_stands() {
        let (tx, _rx) = side_channel();
        let list = TodoList::new(Vec::new(), tx);
        let tools = list.tools();
        let two_working = json!({"todos": [todo("a", "in_progress"), todo("b", "in_progress")]});
        let err = tools[0].call(&two_working).unwrap_err().to_string();
        assert!(
            err.contains("at most one item may be in_progress; a, b are"),
            "{err}"
        );
        let twice = json!({"todos": [todo("a", "pending"), todo("a", "pending")]});
        assert!(tools[0]
            .call(&twice)
            .unwrap_err()
            .to_string()
            .contains("used twice"));
        let unknown = json!({"todos": [todo("a", "blocked")]});
        assert!(tools[0]
            .call(&unknown)
            .unwrap_err()
            .to_string()
            .contains("item 1"));
        assert_eq!(
            tools[1].call(&json!({})).unwrap().content,
            "The todo list is empty."
        );
    }
}
