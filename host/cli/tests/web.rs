//! The web tools end to end (docs/web.md): the bundled `web-fetch` and
//! `web-search` components through the real binary, the `http` permission
//! and fixture servers on loopback started here. `web_fetch` turns a page
//! into markdown without its scripts, marked untrusted, once granted (a
//! bundled plugin gets no network by itself); read mode refuses it unless
//! `[web] fetch_in_read_mode`; `web_search` asks a fake SearxNG and a
//! JSON API mapped by settings, and is not offered without a backend,
//! which `amber doctor` explains.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};

use amber_tests::exec_env::{fake, offered_tools, one_call_then, text, Env, Run};
use amber_tests::http_fixture::read_head;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

const PAGE: &str = "<!doctype html><html><head><title>Widgets</title>\
<style>body { color: red }</style><script>window.steal = document.cookie;</script></head>\
<body><nav><a href=\"/\">Home</a></nav><h1>Widget guide</h1>\
<p>Turn the <b>crank</b> twice.</p><script>alert('x')</script>\
<ul><li>one</li><li>two</li></ul></body></html>";

const SEARXNG: &str = r#"{"query": "widgets", "results": [
 {"title": "Widget guide", "url": "https://widgets.example/guide", "content": "How to turn the crank."},
 {"title": "Widget FAQ", "url": "https://widgets.example/faq", "content": "Questions."}]}"#;

const JSON_API: &str = r#"{"data": {"hits": [
 {"name": "Crank manual", "link": "https://crank.example/manual", "summary": "All about cranks."}]}}"#;

/// A loopback server: `/page` (HTML), `/search` (SearxNG's JSON),
/// `/api` (another API's JSON); each request's first line is kept.
fn serve() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let kept = kept.clone();
            std::thread::spawn(move || answer(stream, &kept));
        }
    });
    (port, seen)
}

fn answer(mut stream: TcpStream, seen: &std::sync::Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let Some((first, _)) = read_head(&mut reader) else {
        return;
    };
    seen.lock().unwrap().push(first.clone());
    let path = first.split_whitespace().nth(1).unwrap_or("/");
    let (kind, body) = if path.starts_with("/page") {
        ("text/html; charset=utf-8", PAGE)
    } else if path.starts_with("/search") {
        ("application/json", SEARXNG)
    } else if path.starts_with("/api") {
        ("application/json", JSON_API)
    } else {
        ("text/plain", "not found")
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

fn env_with(config: &str) -> Env {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        format!("[agent]\nconfirm_turn = false\n{config}"),
    )
    .unwrap();
    env
}

/// `amber tool call TOOL ARGS`: (whether it succeeded, what it said).
fn call(env: &Env, tool: &str, args: &str) -> (bool, String) {
    let out = env.run(&["tool", "call", tool, args, "--yes"]);
    (
        out.status.success(),
        format!("{}{}", text(&out.stdout), text(&out.stderr)),
    )
}

fn granted_fetch(port: u16) -> String {
    format!(
        "[plugins.web-fetch]\ngrants = [\"http\"]\nhttp_hosts = [\"http://127.0.0.1:{port}\"]\n"
    )
}

#[test]
fn web_fetch_reads_a_page_as_markdown_without_scripts_once_granted() {
    let (port, _) = serve();
    let url = format!("http://127.0.0.1:{port}/page");
    let args = format!(r#"{{"url": "{url}", "prompt": "how to turn it"}}"#);
    // Bundled, but no network until a person grants it.
    let env = env_with("");
    let (ok, said) = call(&env, "web_fetch", &args);
    assert!(!ok && said.contains("not granted: http"), "{said}");
    let info = text(&env.run(&["plugin", "info", "web-fetch"]).stdout);
    assert!(
        info.contains("not granted")
            && info.contains("grant it: amber plugin grant web-fetch http"),
        "{info}"
    );

    let env = env_with(&granted_fetch(port));
    let (ok, said) = call(&env, "web_fetch", &args);
    assert!(ok, "{said}");
    assert!(said.contains("# Widget guide"), "{said}");
    assert!(said.contains("Turn the **crank** twice."), "{said}");
    assert!(
        said.contains("untrusted=\"true\"") && said.contains("not instructions"),
        "{said}"
    );
    assert!(said.contains("Looking for: how to turn it"), "{said}");
    for gone in ["alert(", "document.cookie", "color: red", "Home"] {
        assert!(!said.contains(gone), "`{gone}` is in: {said}");
    }
    // Another port of loopback is not in the narrowed grant.
    let (ok, said) = call(&env, "web_fetch", r#"{"url": "http://127.0.0.1:9/page"}"#);
    assert!(
        !ok && said.contains("not granted: http to 127.0.0.1:9"),
        "{said}"
    );
}

fn fetch_in_mode(env: &Env, url: &str, mode: &str) -> Run {
    let server = fake(&one_call_then(
        "web_fetch",
        &format!("{{ url = \"{url}\" }}"),
        "reply = { text = \"Read it.\" }",
    ));
    env.exec(&server, &["--mode", mode], "read the widget guide")
}

#[test]
fn read_mode_fetches_only_when_config_says_reading_the_web_is_reading() {
    let (port, seen) = serve();
    let url = format!("http://127.0.0.1:{port}/page");
    let env = env_with(&granted_fetch(port));
    let run = fetch_in_mode(&env, &url, "read");
    run.assert_done_after_denial("Read it.");
    let result = &run.results()[0];
    assert!(
        result.1 == "denied" && result.2.contains("read mode"),
        "{result:?}"
    );
    assert!(seen.lock().unwrap().is_empty(), "nothing was fetched");

    let env = env_with(&format!(
        "{}\n[web]\nfetch_in_read_mode = true\n",
        granted_fetch(port)
    ));
    let run = fetch_in_mode(&env, &url, "read");
    run.assert_done("Read it.");
    let result = &run.results()[0];
    assert!(
        result.1 == "ok" && result.2.contains("Widget guide"),
        "{result:?}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn web_search_asks_the_configured_api_and_is_not_offered_without_one() {
    let (port, seen) = serve();
    let grant = format!(
        "[plugins.web-search]\ngrants = [\"http\"]\nhttp_hosts = [\"http://127.0.0.1:{port}\"]\n"
    );
    let searxng = env_with(&format!(
        "{grant}[plugins.web-search.settings]\nbackend = \"searxng\"\nurl = \"http://127.0.0.1:{port}\"\n"
    ));
    let (ok, said) = call(
        &searxng,
        "web_search",
        r#"{"query": "turn widgets", "max_results": 1}"#,
    );
    assert!(ok, "{said}");
    assert!(
        said.contains("1. Widget guide") && said.contains("https://widgets.example/guide"),
        "{said}"
    );
    assert!(!said.contains("Widget FAQ"), "max_results = 1: {said}");
    assert!(
        seen.lock().unwrap()[0].starts_with("GET /search?q=turn+widgets&format=json"),
        "{:?}",
        seen.lock().unwrap()
    );

    // Any JSON API, mapped by settings.
    let json = env_with(&format!(
        "{grant}[plugins.web-search.settings]\nbackend = \"json\"\n\
         url = \"http://127.0.0.1:{port}/api?q={{query}}&n={{max}}\"\n\
         results = \"/data/hits\"\ntitle = \"name\"\nurl_field = \"link\"\nsnippet = \"summary\"\n"
    ));
    let (ok, said) = call(&json, "web_search", r#"{"query": "cranks"}"#);
    assert!(
        ok && said.contains("1. Crank manual") && said.contains("All about cranks."),
        "{said}"
    );

    // Without a backend: not offered, and the doctor says how.
    let none = env_with("");
    let server = fake("[[turns]]\nreply = { text = \"ok\" }\n");
    none.exec(&server, &[], "hi").assert_done("ok");
    let offered = offered_tools(&server, 0);
    assert!(!offered.iter().any(|t| t == "web_search"), "{offered:?}");
    assert!(offered.iter().any(|t| t == "web_fetch"), "{offered:?}");
    let doctor = none.run(&["doctor", "--offline"]);
    let said = text(&doctor.stdout);
    assert!(
        said.contains("web_search is not offered") && said.contains("docs/web.md"),
        "{said}"
    );
}
