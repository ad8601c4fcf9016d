//! Recorded responses for `amber plugin test` (the `[[http]]` entries of a
//! plugin's `tests.toml`): with fixtures set, a plugin's requests are
//! answered from them, after the same grant checks a real request passes,
//! and never sent; one no fixture answers is refused, naming it. A
//! plugin's tests then need no network and give the same answer anywhere.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One recorded exchange: a request (its method and whole URL) and the
/// response served for it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpFixture {
    #[serde(default = "get")]
    pub method: String,
    pub url: String,
    #[serde(default = "ok")]
    pub status: u16,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub body: String,
}

fn get() -> String {
    "GET".into()
}

fn ok() -> u16 {
    200
}

/// The fixtures of one test run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpFixtures(pub Vec<HttpFixture>);

impl HttpFixtures {
    /// The fixture for `method` on `url` (compared as parsed URLs, so
    /// `HTTPS://Api.Example.com` and `https://api.example.com/` are one).
    pub fn answer(&self, method: &str, url: &reqwest::Url) -> Option<&HttpFixture> {
        self.0.iter().find(|f| {
            f.method.eq_ignore_ascii_case(method)
                && reqwest::Url::parse(&f.url).is_ok_and(|u| u == *url)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixture_answers_its_method_and_url_as_parsed() {
        let fixtures = HttpFixtures(vec![HttpFixture {
            method: "GET".into(),
            url: "https://API.example.com/v1?q=1".into(),
            status: 200,
            headers: BTreeMap::new(),
            body: "{}".into(),
        }]);
        let url = reqwest::Url::parse("https://api.example.com/v1?q=1").unwrap();
        assert!(fixtures.answer("get", &url).is_some());
        assert!(fixtures.answer("POST", &url).is_none());
        let other = reqwest::Url::parse("https://api.example.com/v1?q=2").unwrap();
        assert!(fixtures.answer("GET", &other).is_none());
    }
}
