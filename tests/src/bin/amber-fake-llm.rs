//! `amber-fake-llm --script F [--port P]`: serves a scripted transcript as
//! OpenAI chat, OpenAI responses and Anthropic messages SSE on 127.0.0.1,
//! prints the port, and runs until killed.

use std::path::PathBuf;
use std::process::ExitCode;

use amber_tests::fake_llm::{FakeLlm, Transcript};

const USAGE: &str = "usage: amber-fake-llm --script FILE.toml [--port PORT]\n\n\
Serves /v1/chat/completions, /v1/responses and /v1/messages from the script,\n\
prints the port it listens on (use --port 0 for any), and runs until killed.\n\
GET /_fake/received lists the requests received, with what did not match.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut script = None;
    let mut port = 0u16;
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--script", Some(v)) => script = Some(PathBuf::from(v)),
            ("--port", Some(v)) => match v.parse() {
                Ok(p) => port = p,
                Err(_) => {
                    eprintln!("amber-fake-llm: --port wants a number, got `{v}`");
                    return ExitCode::from(2);
                }
            },
            ("-h" | "--help", _) => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            (other, _) => {
                eprintln!("amber-fake-llm: unexpected `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }
    let Some(script) = script else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let transcript = match Transcript::load(&script) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("amber-fake-llm: {e}");
            return ExitCode::FAILURE;
        }
    };
    match FakeLlm::start(transcript, port) {
        Ok(server) => {
            println!("{}", server.addr.port());
            server.wait();
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("amber-fake-llm: cannot listen on 127.0.0.1:{port}: {e}");
            ExitCode::FAILURE
        }
    }
}
