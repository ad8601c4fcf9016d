//! What the `http` permission and images cost (docs/web.md,
//! docs/images.md):
//!
//! - `http_plugin_request`: the request alone as a plugin makes it: the
//!   `http-probe` guest's `fetch` of a page on a local server (its own
//!   `wasi:http` client and the host's checks: the grant on the URL, the
//!   checking resolver, the in-flight cap, the capped body, the log line)
//!   less the same plugin's `echo` call (the ledger, the instance, the
//!   arguments), against a native reqwest GET of the same page with a
//!   client kept warm, as the host keeps one per plugin: goal ≤ 1.3×;
//! - `http_plugin_tool_call`: the whole `fetch` call, the same baseline,
//!   no goal (what a model's call costs end to end);
//! - `image_prepare_4000x3000`: a 4000×3000 PNG made ready to send
//!   (header read, decoded, shrunk to 1568 px, encoded again), against
//!   decoding it alone: goal ≤ 150 ms.

use std::io::Cursor;
use std::sync::Arc;

use amber_app::images::NativeImagePrep;
use amber_core::ports::ImagePrep;
use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{bail, Context, Result};
use axum::serve::ListenerExt;
use serde_json::json;

use crate::measure::{guest, interleaved_ms, paired_ms, Figure, Rows};

const ROUNDS: usize = 201;
const IMAGE_ROUNDS: usize = 11;

/// The page both sides fetch: small, so the row is the request's cost.
const PAGE: &str = "hello from the bench server";

/// An axum server of `PAGE` on loopback, on a thread of its own; its port.
fn serve() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name("web-bench-server".into())
        .spawn(move || {
            runtime.block_on(async move {
                let router =
                    axum::Router::new().route("/page", axum::routing::get(|| async { PAGE }));
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let listener = listener.tap_io(|tcp| {
                    let _ = tcp.set_nodelay(true);
                });
                let _ = axum::serve(listener, router).await;
            });
        })
        .context("starting the bench's web server")?;
    Ok(port)
}

pub fn run(rows: &mut Rows) -> Result<()> {
    http_rows(rows)?;
    image_rows(rows)
}

fn http_rows(rows: &mut Rows) -> Result<()> {
    let port = serve()?;
    let url = format!("http://127.0.0.1:{port}/page");
    let scratch = tempfile::tempdir()?;
    let mut dirs = AmberDirs::under(scratch.path());
    dirs.cache = scratch.path().join("cache");
    let options = RuntimeOptions::new(dirs, scratch.path().to_path_buf());
    let runtime = PluginRuntime::new(options, Arc::new(Ledger::new()))?;
    let (id, _) = runtime.register_file(&guest("http-probe")?)?;
    runtime.enable(&id, Grants::of([amber_runtime::Permission::Http]))?;
    let fetch_args = json!({ "url": url });
    let echo_args = json!({ "text": PAGE });
    let call = |tool: &str, args: &serde_json::Value| -> Result<()> {
        let tool = runtime.ledger().tool(tool).context("the probe's tool")?;
        let out = tool.call(args).map_err(|e| anyhow::anyhow!("{e}"))?;
        if !out.content.contains(PAGE) {
            bail!("the probe did not get the page: {}", out.content);
        }
        Ok(())
    };
    let client = reqwest::Client::builder().no_proxy().build()?;
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut native = || -> Result<()> {
        let body = tokio.block_on(async { client.get(&url).send().await?.text().await })?;
        if body != PAGE {
            bail!("reqwest did not get the page: {body}");
        }
        Ok(())
    };
    let mut fetch = || call("fetch", &fetch_args);
    let mut echo = || call("echo", &echo_args);
    let medians = interleaved_ms(ROUNDS, &mut [&mut fetch, &mut echo, &mut native])?;
    let [fetched, echoed, reqwest] = medians[..] else {
        bail!("three medians were expected");
    };
    rows.push(
        Figure {
            name: "http_plugin_request",
            unit: "ms",
            value: (fetched - echoed).max(0.0),
            baseline: Some(("native_reqwest", reqwest)),
            goal_value: None,
            goal_ratio: Some(1.3),
        }
        .row(),
    )?;
    rows.push(
        Figure {
            name: "http_plugin_tool_call",
            unit: "ms",
            value: fetched,
            baseline: Some(("native_reqwest", reqwest)),
            goal_value: None,
            goal_ratio: None,
        }
        .row(),
    )
}

/// A `w`×`h` PNG of a photo's kind: smooth gradients with grain, so it
/// neither compresses to nothing nor is noise.
fn photo_png(w: u32, h: u32) -> Result<Vec<u8>> {
    let mut seed = 1u32;
    let img = image::ImageBuffer::from_fn(w, h, |x, y| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let grain = (seed >> 28) as u8;
        image::Rgb([
            ((x * 255 / w) as u8).wrapping_add(grain),
            ((y * 255 / h) as u8).wrapping_add(grain),
            (((x + y) % 256) as u8) / 2 + grain,
        ])
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)?;
    Ok(out)
}

fn image_rows(rows: &mut Rows) -> Result<()> {
    let png = photo_png(4000, 3000)?;
    eprintln!("web: a 4000×3000 PNG of {} KB", png.len() / 1000);
    let prep = NativeImagePrep::default();
    let prepare = || -> Result<()> {
        let image = prep.prepare(&png).map_err(anyhow::Error::msg)?;
        if image.width != 1568 {
            bail!("prepared to {}×{}", image.width, image.height);
        }
        Ok(())
    };
    let decode = || -> Result<()> {
        std::hint::black_box(image::load_from_memory(&png)?);
        Ok(())
    };
    let (prepared, decoded) = paired_ms(IMAGE_ROUNDS, prepare, decode)?;
    rows.push(
        Figure {
            name: "image_prepare_4000x3000",
            unit: "ms",
            value: prepared,
            baseline: Some(("decode_alone", decoded)),
            goal_value: Some(150.0),
            goal_ratio: None,
        }
        .row(),
    )
}
