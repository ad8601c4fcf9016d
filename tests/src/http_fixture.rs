//! What the tests' loopback HTTP servers share: reading a request's head.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;

/// The request line and the header lines (trimmed) of the request coming
/// on `reader`, up to the blank line; `None` when nothing came.
pub fn read_head(reader: &mut BufReader<TcpStream>) -> Option<(String, Vec<String>)> {
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        headers.push(line.trim().to_string());
    }
    Some((first.trim().to_string(), headers))
}
