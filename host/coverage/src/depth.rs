//! How deeply a symbol was read. Ordered: a read never lowers a depth.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    Unseen,
    /// Its name was seen (a grep hit, a caller).
    NameOnly,
    /// It was listed among its file's symbols (an outline).
    Overview,
    /// Its signature was read.
    Signature,
    /// Its whole body was read.
    FullBody,
}

impl Depth {
    pub fn as_str(self) -> &'static str {
        match self {
            Depth::Unseen => "unseen",
            Depth::NameOnly => "name_only",
            Depth::Overview => "overview",
            Depth::Signature => "signature",
            Depth::FullBody => "full_body",
        }
    }

    /// How a person reads it in a digest or a report.
    pub fn label(self) -> &'static str {
        match self {
            Depth::Unseen => "unseen",
            Depth::NameOnly => "name",
            Depth::Overview => "outline",
            Depth::Signature => "signature",
            Depth::FullBody => "full",
        }
    }
}

impl std::str::FromStr for Depth {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Depth::Unseen,
            Depth::NameOnly,
            Depth::Overview,
            Depth::Signature,
            Depth::FullBody,
        ]
        .into_iter()
        .find(|d| d.as_str() == s)
        .ok_or_else(|| format!("unknown depth `{s}` (name_only, overview, signature or full_body)"))
    }
}

#[cfg(test)]
mod tests {
    use super::Depth;

    #[test]
    fn depths_are_ordered_from_unseen_to_full_body() {
        assert!(Depth::Unseen < Depth::NameOnly);
        assert!(Depth::NameOnly < Depth::Overview);
        assert!(Depth::Overview < Depth::Signature);
        assert!(Depth::Signature < Depth::FullBody);
        assert_eq!("overview".parse::<Depth>().unwrap(), Depth::Overview);
        assert!("deep".parse::<Depth>().is_err());
    }
}
