//! The `http` permission end to end (docs/permissions.md): the real
//! binary, the `http-probe` guest (a Rust tool whose own client speaks
//! `wasi:http`) and a fixture server on loopback started here. Granted
//! one port, the probe fetches from it; it is refused another port, a
//! redirect to one, a name that resolves to loopback without an exact
//! grant, a body past the cap and a slow server; ungranted, it is refused
//! with "not granted: http"; and a secret config binds to the host
//! reaches the server while the plugin never sees it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use amber_tests::exec_env::{text, Env};
use amber_tests::guests::guest;
use amber_tests::http_fixture::read_head;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// A loopback HTTP/1.1 server: `/page`, `/redirect` (to `to`), `/big`
/// (50 MB), `/slow` (5 s). It keeps every request's headers.
struct Fixture {
    port: u16,
    headers: Arc<Mutex<Vec<String>>>,
}

fn serve(redirect_to: Option<u16>) -> Fixture {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let headers = Arc::new(Mutex::new(Vec::new()));
    let seen = headers.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let seen = seen.clone();
            std::thread::spawn(move || answer(stream, &seen, redirect_to));
        }
    });
    Fixture { port, headers }
}

fn answer(mut stream: TcpStream, seen: &Mutex<Vec<String>>, redirect_to: Option<u16>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let Some((first, headers)) = read_head(&mut reader) else {
        return;
    };
    seen.lock()
        .unwrap()
        .extend(headers.iter().map(|h| h.to_ascii_lowercase()));
    let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    let reply = |stream: &mut TcpStream, status: &str, extra: &str, body: &[u8]| {
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n{extra}\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(body);
    };
    match path.as_str() {
        "/page" => reply(&mut stream, "200 OK", "", b"hello from the fixture"),
        "/redirect" => {
            let to = format!(
                "location: http://127.0.0.1:{}/page\r\n",
                redirect_to.unwrap_or(1)
            );
            reply(&mut stream, "302 Found", &to, b"");
        }
        "/big" => {
            let size = 50 << 20;
            let head =
                format!("HTTP/1.1 200 OK\r\ncontent-length: {size}\r\nconnection: close\r\n\r\n");
            let _ = stream.write_all(head.as_bytes());
            let chunk = vec![b'x'; 1 << 16];
            for _ in 0..(size / chunk.len()) {
                if stream.write_all(&chunk).is_err() {
                    break;
                }
            }
        }
        "/slow" => {
            std::thread::sleep(Duration::from_secs(5));
            reply(&mut stream, "200 OK", "", b"late");
        }
        _ => reply(&mut stream, "404 Not Found", "", b""),
    }
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
}

/// An amber with the probe added, granted `http` narrowed to `hosts`,
/// with `extra` config.
fn env_with(hosts: &[String], extra: &str) -> Env {
    let env = Env::new(AMBER);
    let listed: Vec<String> = hosts.iter().map(|h| format!("\"{h}\"")).collect();
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[limits]\nhttp_timeout_ms = 1500\nhttp_response_mib = 1\n\n\
             [plugins.http-probe]\nhttp_hosts = [{}]\n{extra}",
            listed.join(", ")
        ),
    )
    .unwrap();
    let probe = guest("http-probe");
    let out = env.run(&["plugin", "add", probe.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    env
}

/// `fetch` through `amber tool call`: (whether it succeeded, what it said).
fn fetch(env: &Env, url: &str, resolve: &str) -> (bool, String) {
    let args = format!(r#"{{"url": "{url}"}}"#);
    let out = env
        .command(&["tool", "call", "fetch", &args, "--yes"])
        .env("AMBER_HTTP_RESOLVE", resolve)
        .output()
        .unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.success(), said)
}

#[test]
fn a_granted_port_answers_and_everything_else_is_refused_with_its_reason() {
    let other = serve(None);
    let fixture = serve(Some(other.port));
    let granted = format!("http://127.0.0.1:{}", fixture.port);
    let env = env_with(&[granted, "*.example.test".into()], "");
    let base = format!("http://127.0.0.1:{}", fixture.port);

    let (ok, said) = fetch(&env, &format!("{base}/page"), "");
    assert!(
        ok && said.contains("status 200") && said.contains("hello from the fixture"),
        "{said}"
    );

    let (ok, said) = fetch(&env, &format!("http://127.0.0.1:{}/page", other.port), "");
    assert!(
        !ok && said.contains("not granted: http to 127.0.0.1"),
        "{said}"
    );

    let (ok, said) = fetch(&env, &format!("{base}/redirect"), "");
    assert!(!ok && said.contains("redirect was refused"), "{said}");

    // Both loopback ports granted: a request to each answers, but one
    // host's redirect into the other is still refused (a page elsewhere
    // may not send a plugin inside).
    let both = env_with(
        &[
            format!("http://127.0.0.1:{}", fixture.port),
            format!("http://127.0.0.1:{}", other.port),
        ],
        "",
    );
    let (ok, said) = fetch(&both, &format!("http://127.0.0.1:{}/page", other.port), "");
    assert!(ok, "{said}");
    let (ok, said) = fetch(&both, &format!("{base}/redirect"), "");
    assert!(
        !ok && said.contains("only a request made to it directly"),
        "{said}"
    );

    // A name the grant covers by its wildcard, resolving to loopback.
    let (ok, said) = fetch(
        &env,
        "https://rebind.example.test/page",
        "rebind.example.test=127.0.0.1",
    );
    assert!(
        !ok && said.contains("resolves to 127.0.0.1") && said.contains("only a grant naming"),
        "{said}"
    );

    // 50 MB against a 1 MiB cap: cut, and said.
    let (_, said) = fetch(&env, &format!("{base}/big"), "");
    assert!(
        said.contains("then:") && said.contains("status 200"),
        "{said}"
    );
    let bytes: u64 = said
        .split(", ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    assert!(bytes <= 2 << 20, "{bytes} bytes read: {said}");

    let (ok, said) = fetch(&env, &format!("{base}/slow"), "");
    assert!(!ok && said.to_lowercase().contains("timeout"), "{said}");

    // Each request is a line of the plugin's log.
    let info = env.run(&["plugin", "info", "http-probe"]);
    let log =
        std::fs::read_to_string(env.home.join("data/plugins/http-probe/log")).unwrap_or_default();
    assert!(
        log.contains("http GET 127.0.0.1 200 22 bytes"),
        "{log}\n{}",
        text(&info.stdout)
    );
    assert!(
        text(&info.stdout).contains("http"),
        "{}",
        text(&info.stdout)
    );
}

#[test]
fn an_ungranted_plugin_is_refused_and_a_secret_reaches_the_server_not_the_plugin() {
    let elsewhere = serve(None);
    let fixture = serve(Some(elsewhere.port));
    let granted = format!("http://127.0.0.1:{}", fixture.port);
    let also = format!("http://127.0.0.1:{}", elsewhere.port);
    let env = env_with(
        &[granted.clone(), also],
        &format!(
            "\n[plugins.http-probe.http_headers.\"{granted}\"]\nx-api-key = \"probe\"\n\n\
             [secrets.probe]\nenv = \"PROBE_TOKEN\"\n"
        ),
    );
    let url = format!("{granted}/page");
    let out = env
        .command(&[
            "tool",
            "call",
            "fetch",
            &format!(r#"{{"url": "{url}"}}"#),
            "--yes",
        ])
        .env("PROBE_TOKEN", "s3cret-value")
        .output()
        .unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("s3cret-value"), "{said}");
    assert!(said.contains("sent headers: []"), "{said}");
    let headers = fixture.headers.lock().unwrap().clone();
    let log =
        std::fs::read_to_string(env.home.join("data/plugins/http-probe/log")).unwrap_or_default();
    assert!(
        headers.iter().any(|h| h == "x-api-key: s3cret-value"),
        "{headers:?}\n{log}"
    );
    assert!(
        !headers.iter().any(|h| h.starts_with("cookie")),
        "{headers:?}"
    );

    // A redirect to another granted host is handed back, not followed
    // with the first host's secret.
    let redirect = format!(r#"{{"url": "{granted}/redirect"}}"#);
    let out = env
        .command(&["tool", "call", "fetch", &redirect, "--yes"])
        .env("PROBE_TOKEN", "s3cret-value")
        .output()
        .unwrap();
    let said = text(&out.stdout);
    assert!(said.contains("status 302"), "{said}{}", text(&out.stderr));
    let there = elsewhere.headers.lock().unwrap().clone();
    assert!(
        !there.iter().any(|h| h.contains("s3cret-value")),
        "{there:?}"
    );

    // Revoked, the same request is refused.
    let out = env.run(&["plugin", "revoke", "http-probe", "http"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (ok, said) = fetch(&env, &url, "");
    assert!(!ok && said.contains("not granted: http"), "{said}");
}
