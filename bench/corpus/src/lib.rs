//! Nothing: this crate only names the corpus (see Cargo.toml).
