//! `/jobs`: the session's background processes with their last lines;
//! `/jobs stop ID|all` stops them with everything they started.

use amber_core::commands::{Invocation, Reply};
use serde_json::json;

use super::{failed, invalid, Handled};
use crate::App;

pub fn jobs(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let Some(live) = app.live() else {
        return Ok(Reply::text(
            "no session is open: background processes belong to a session",
        ));
    };
    let jobs = live.jobs.clone();
    let words: Vec<&str> = inv.arg.split_whitespace().collect();
    match words.as_slice() {
        [] | ["list"] => {
            let listed = jobs.list(3);
            if listed.is_empty() {
                return Ok(Reply::text("no background processes").with_data(json!({"jobs": []})));
            }
            let mut text = String::new();
            for job in &listed {
                let state = job.state();
                text.push_str(&format!(
                    "[{}] {state} · pid {} · {}\n",
                    job.id, job.pid, job.command
                ));
                for line in &job.tail {
                    text.push_str(&format!("    {line}\n"));
                }
            }
            Ok(Reply::text(text.trim_end()).with_data(json!({ "jobs": listed })))
        }
        ["stop", "all"] => {
            let stopped = jobs.stop_all();
            Ok(Reply::text(format!(
                "stopped {}",
                amber_core::text::count(stopped, "background process")
            )))
        }
        ["stop", id] => {
            let id: u32 = id
                .parse()
                .map_err(|_| invalid(format!("`{id}` is not a job id (see /jobs)")))?;
            let info = jobs.stop(id).map_err(failed)?;
            Ok(
                Reply::text(format!("[{}] stopped · {}", info.id, info.command))
                    .with_data(json!({ "job": info })),
            )
        }
        _ => Err(invalid("usage: /jobs [list] | stop ID | stop all")),
    }
}
