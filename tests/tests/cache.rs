//! The content-addressed AOT cache: a second load never compiles, homes
//! share it, and a corrupt entry is recompiled rather than trusted.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::sync::Arc;

use amber_runtime::cache::{CacheOutcome, ComponentCache};
use amber_runtime::error::LoadError;
use amber_runtime::shared_engine;
use amber_tests::guest;

#[test]
fn a_second_load_comes_from_the_cache_and_a_corrupt_entry_is_recompiled() {
    let dir = tempfile::tempdir().unwrap();
    let engine = shared_engine().unwrap();
    let cache = ComponentCache::new(dir.path(), engine);
    let path = guest("hello-tool");
    let wasm = Arc::new(std::fs::read(&path).unwrap());
    let key = ComponentCache::key(&wasm);
    let bytes = || Ok(wasm.clone());
    // A hit is served by the key alone: the bytes are never asked for.
    let no_bytes = || -> Result<Arc<Vec<u8>>, LoadError> { panic!("a hit read the bytes") };
    assert_eq!(
        cache.load(engine, &key, &bytes, &path).unwrap().1,
        CacheOutcome::Compiled
    );
    assert_eq!(
        cache.load(engine, &key, &no_bytes, &path).unwrap().1,
        CacheOutcome::Hit
    );

    // Another home pointing at the same dir shares the entry.
    let other = ComponentCache::new(dir.path(), engine);
    assert_eq!(
        other.load(engine, &key, &no_bytes, &path).unwrap().1,
        CacheOutcome::Hit
    );

    std::fs::write(cache.entry(&key), b"garbage").unwrap();
    assert_eq!(
        cache.load(engine, &key, &bytes, &path).unwrap().1,
        CacheOutcome::Compiled
    );
    assert_eq!(
        cache.load(engine, &key, &no_bytes, &path).unwrap().1,
        CacheOutcome::Hit
    );
    // A miss whose bytes cannot be had is that error, not a panic.
    let gone = || -> Result<Arc<Vec<u8>>, LoadError> {
        Err(LoadError::Read {
            path: path.clone(),
            reason: "gone".into(),
        })
    };
    let other_key = "0".repeat(64);
    assert!(cache.load(engine, &other_key, &gone, &path).is_err());
}

#[test]
fn the_key_is_the_content_hash_plus_the_engine_tag() {
    let dir = tempfile::tempdir().unwrap();
    let engine = shared_engine().unwrap();
    let cache = ComponentCache::new(dir.path(), engine);
    let wasm = std::fs::read(guest("echo-tool")).unwrap();
    let name = cache
        .entry(&ComponentCache::key(&wasm))
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let hash = blake3::hash(&wasm).to_hex().to_string();
    assert!(
        name.starts_with(&format!("{hash}-")) && name.ends_with(".cwasm"),
        "{name}"
    );
}
