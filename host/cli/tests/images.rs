//! Images end to end, through the real binary, the real dialect
//! components and the fake LLM server, which checks each vendor's image
//! shape: `--image` reaches the server in each of the three wire formats,
//! shrunk to fit every vendor; a preset whose model takes no images
//! refuses before anything is sent; `read_file` of a JPEG gives the model
//! the image (or, for a model without images, its size); a session keeps
//! an image once, by hash, and a resume sends it again.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::Cursor;
use std::path::Path;

use amber_tests::exec_env::{fake, one_call_then, Env, Run};
use amber_tests::fake_llm::FakeLlm;
use base64::Engine;
use image::{DynamicImage, ImageBuffer, ImageFormat, Rgb};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// A `w`×`h` image of a gradient, written as `format` to `path`.
fn write_image(path: &Path, w: u32, h: u32, format: ImageFormat) {
    let img = ImageBuffer::from_fn(w, h, |x, y| Rgb([(x % 251) as u8, (y % 241) as u8, 128]));
    let mut bytes = Vec::new();
    DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut bytes), format)
        .unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn exec(env: &Env, provider: &str, server: &FakeLlm, extra: &[&str], prompt: &str) -> Run {
    env.exec_as(provider, server, extra, prompt)
}

/// The data of every image in a recorded body, decoded, whatever the
/// vendor's shape (a data URL's tail, or Anthropic's `data`).
fn sent_images(body: &Value) -> Vec<DynamicImage> {
    let mut out = Vec::new();
    collect(body, &mut out);
    out
}

fn collect(value: &Value, out: &mut Vec<DynamicImage>) {
    match value {
        Value::String(s) => {
            if let Some((_, data)) = s
                .strip_prefix("data:")
                .and_then(|r| r.split_once(";base64,"))
            {
                out.push(decode(data));
            }
        }
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("base64") {
                out.push(decode(map["data"].as_str().unwrap()));
                return;
            }
            map.values().for_each(|v| collect(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        _ => {}
    }
}

fn decode(data: &str) -> DynamicImage {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    image::load_from_memory(&bytes).unwrap()
}

#[test]
fn an_image_given_with_exec_reaches_each_vendor_in_its_shape_shrunk_to_fit() {
    let env = Env::without_confirm_turn(AMBER);
    let shot = env.home.join("shot.png");
    write_image(&shot, 3200, 1600, ImageFormat::Png);
    for provider in ["openai", "openai-responses", "anthropic"] {
        let server = fake("[[turns]]\nexpect_images = 1\nreply = { text = \"A gradient.\" }\n");
        let run = exec(
            &env,
            provider,
            &server,
            &["--image", shot.to_str().unwrap()],
            "what is this?",
        );
        run.assert_done("A gradient.");
        let received = server.received();
        assert!(
            received[0].problems.is_empty(),
            "{provider}: {:?}",
            received[0].problems
        );
        let images = sent_images(&received[0].body);
        assert_eq!(images.len(), 1, "{provider}");
        // 3200×1600 is over Anthropic's 1568 px: shrunk, its shape kept.
        assert_eq!(
            (images[0].width(), images[0].height()),
            (1568, 784),
            "{provider}"
        );
    }
}

#[test]
fn a_model_without_images_refuses_the_prompt_before_anything_is_sent() {
    let env = Env::without_confirm_turn(AMBER);
    let shot = env.home.join("shot.png");
    write_image(&shot, 64, 64, ImageFormat::Png);
    let server = fake("[[turns]]\nreply = { text = \"never\" }\n");
    // `lmstudio` ships without images (a local model).
    let run = exec(
        &env,
        "lmstudio",
        &server,
        &["--image", shot.to_str().unwrap()],
        "look",
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let error = run.one("session.failed")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("preset `lmstudio`") && error.contains("does not take images"),
        "{error}"
    );
    assert!(server.received().is_empty());
    // A file that is no image is refused naming it, before a session.
    let fake_png = env.home.join("notes.png");
    std::fs::write(&fake_png, "not a picture").unwrap();
    let run = exec(
        &env,
        "openai",
        &server,
        &["--image", fake_png.to_str().unwrap()],
        "look",
    );
    assert_ne!(run.code, Some(0));
    let error = run.one("session.failed")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("--image") && error.contains("notes.png") && error.contains("not a PNG"),
        "{error}"
    );
    assert!(server.received().is_empty());
}

/// `read_file` of photo.jpg, then a turn whose request must carry
/// `images` images.
fn read_photo(images: usize) -> String {
    one_call_then(
        "read_file",
        "{ path = \"photo.jpg\" }",
        &format!("expect_images = {images}\nreply = {{ text = \"A photo.\" }}"),
    )
}

#[test]
fn read_file_of_a_jpeg_shows_the_model_the_image_in_each_vendors_shape() {
    let env = Env::without_confirm_turn(AMBER);
    write_image(&env.ws.join("photo.jpg"), 320, 200, ImageFormat::Jpeg);
    for provider in ["openai", "openai-responses", "anthropic"] {
        let server = fake(&read_photo(1));
        let run = exec(&env, provider, &server, &[], "describe photo.jpg");
        run.assert_done("A photo.");
        let received = server.received();
        assert!(
            received[1].problems.is_empty(),
            "{provider}: {:?}",
            received[1].problems
        );
        let images = sent_images(&received[1].body);
        assert_eq!(
            (images[0].width(), images[0].height()),
            (320, 200),
            "{provider}"
        );
        let result = &run.results()[0];
        assert!(
            result.2.contains("[image: JPEG 320×200"),
            "{provider}: {result:?}"
        );
    }
    // A model without images reads its size instead, naming the preset.
    let server = fake(&read_photo(0));
    let run = exec(&env, "lmstudio", &server, &[], "describe photo.jpg");
    run.assert_done("A photo.");
    let result = &run.results()[0];
    assert!(
        result.2.contains("JPEG 320×200") && result.2.contains("preset `lmstudio`"),
        "{result:?}"
    );
}

#[test]
fn a_session_keeps_an_image_once_by_hash_and_a_resume_sends_it_again() {
    let env = Env::without_confirm_turn(AMBER);
    let shot = env.home.join("shot.png");
    write_image(&shot, 100, 50, ImageFormat::Png);
    let server = fake(
        "[[turns]]\nexpect_images = 1\nreply = { text = \"Seen.\" }\n\
         [[turns]]\nexpect_images = 2\nreply = { text = \"Seen again.\" }\n\
         [[turns]]\nexpect_images = 2\nreply = { text = \"Still there.\" }\n",
    );
    let image = ["--image", shot.to_str().unwrap()];
    let first = exec(&env, "anthropic", &server, &image, "look");
    first.assert_done("Seen.");
    let id = first.session_id();
    // The same image again: kept once.
    exec(
        &env,
        "anthropic",
        &server,
        &[&image[..], &["--resume", &id]].concat(),
        "again",
    )
    .assert_done("Seen again.");
    let kept: Vec<_> = std::fs::read_dir(env.home.join("data/sessions/images"))
        .unwrap()
        .collect();
    assert_eq!(kept.len(), 1);
    // The record names the image by hash; its bytes are not in the file.
    let file = std::fs::read_to_string(env.session_file(&id)).unwrap();
    assert!(
        file.contains("\"type\":\"image\"") && !file.contains("iVBOR"),
        "{file}"
    );
    // Resumed without `--image`: the history's two are sent again.
    exec(&env, "anthropic", &server, &["--resume", &id], "still?").assert_done("Still there.");
    for request in server.received() {
        assert!(request.problems.is_empty(), "{:?}", request.problems);
    }
    let shown = env.run(&["sessions", "show", &id]);
    assert!(String::from_utf8_lossy(&shown.stdout).contains("[image: PNG 100×50"));
}

#[test]
fn in_the_tui_a_pasted_image_path_and_an_at_mention_go_with_the_prompt() {
    use amber_tests::tmux::Tmux;
    let env = Env::without_confirm_turn(AMBER);
    let shot = env.home.join("Screen Shot.png");
    write_image(&shot, 200, 100, ImageFormat::Png);
    write_image(&env.ws.join("photo.jpg"), 120, 80, ImageFormat::Jpeg);
    let server = fake(
        "[[turns]]\nexpect_images = 1\nreply = { text = \"A screenshot.\" }\n\
         [[turns]]\nexpect_images = 2\nreply = { text = \"And a photo.\" }\n",
    );
    let tui = Tmux::start_sized(&env, &server, "amber-images", "", (80, 24));
    tui.wait_for("mode write");
    // A dragged file arrives as a bracketed paste of its quoted path.
    tui.paste(&format!("'{}'", shot.display()));
    tui.wait_for("attached image");
    tui.type_line("what is this?");
    tui.wait_for("A screenshot.");
    tui.type_line("and @photo.jpg?");
    tui.wait_for("And a photo.");
    let received = server.received();
    assert_eq!(received.len(), 2);
    for request in &received {
        assert!(request.problems.is_empty(), "{:?}", request.problems);
    }
    let images = sent_images(&received[1].body);
    assert_eq!((images[1].width(), images[1].height()), (120, 80));
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");

    // Resumed, the transcript says which images each prompt carried.
    let resumed = Tmux::start_sized(&env, &server, "amber-images-resumed", "-c", (80, 24));
    let screen = resumed.wait_for("attached an image: JPEG 120×80");
    assert!(
        screen.contains("attached an image: PNG 200×100") && screen.contains("› and @photo.jpg?"),
        "{screen}"
    );
    resumed.keys(&["C-d"]);
    resumed.wait_for("amber exited 0");
}
