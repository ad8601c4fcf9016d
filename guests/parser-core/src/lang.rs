//! The languages, their names and extensions. Grammars are not linked
//! here: each guest links only its own and hands it to the [`Outliner`],
//! so a Rust parser carries no TypeScript tables.
//!
//! [`Outliner`]: crate::Outliner

/// A language the outliner knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    /// JavaScript and JSX, parsed with the TSX grammar, which accepts them.
    JavaScript,
    Markdown,
}

impl Lang {
    pub const ALL: [Lang; 6] = [
        Lang::Rust,
        Lang::Python,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Markdown,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Markdown => "markdown",
        }
    }

    /// File extensions without the dot.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &["rs"],
            Lang::Python => &["py", "pyi"],
            Lang::TypeScript => &["ts", "mts", "cts"],
            Lang::Tsx => &["tsx"],
            Lang::JavaScript => &["js", "mjs", "cjs", "jsx"],
            Lang::Markdown => &["md", "markdown"],
        }
    }

    pub fn from_name(name: &str) -> Result<Lang, String> {
        Lang::ALL
            .into_iter()
            .find(|l| l.name() == name)
            .ok_or_else(|| format!("unknown language `{name}`"))
    }

    pub fn from_extension(ext: &str) -> Option<Lang> {
        Lang::ALL
            .into_iter()
            .find(|l| l.extensions().contains(&ext))
    }
}
