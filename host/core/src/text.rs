//! Text shown to people: in one line (a session's title, a tool call in
//! the terminal, a time), and two texts' lines side by side (a diff).

/// `text` with its whitespace runs collapsed to single spaces, cut to at
/// most `max_chars` characters with an ellipsis when longer.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max_chars {
        return line;
    }
    let cut: String = line.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// What [`parse_moment`] could not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a time: give Unix seconds, a date (2026-12-01) or a UTC time (2026-12-01T12:00Z)")]
pub struct NotATime {
    pub text: String,
}

/// A moment a person types, as Unix seconds: the seconds themselves
/// (`1764547200`), a UTC date (`2026-12-01`, its midnight), or a UTC time
/// (`2026-12-01T12:00`, `2026-12-01 12:00:30Z`). Dates to days by Howard
/// Hinnant's `days_from_civil`, the inverse of [`utc_minute`]'s.
pub fn parse_moment(text: &str) -> Result<i64, NotATime> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<i64>() {
        return Ok(secs);
    }
    let bad = || NotATime {
        text: text.to_string(),
    };
    let (date, time) = match text.split_once(['T', ' ']) {
        Some((date, time)) => (date, Some(time.trim_end_matches('Z'))),
        None => (text, None),
    };
    let mut parts = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (Some(Some(year)), Some(Some(month)), Some(Some(day))) =
        (parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    if !(1..=12).contains(&month) || !(1..=days_in_month(year, month)).contains(&day) {
        return Err(bad());
    }
    let mut seconds = 0;
    if let Some(time) = time {
        let fields: Vec<Option<i64>> = time.split(':').map(|p| p.parse().ok()).collect();
        let limits = [24, 60, 60];
        if fields.is_empty() || fields.len() > 3 {
            return Err(bad());
        }
        for (i, field) in fields.iter().enumerate() {
            match field {
                Some(v) if (0..limits[i]).contains(v) => {
                    seconds += v * [3600, 60, 1][i];
                }
                _ => return Err(bad()),
            }
        }
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let day_of_year = (153 * mp + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Ok(days * 86_400 + seconds)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `n` and the noun, singular for one: "1 tool", "2 tools", "0 tools".
/// The plural adds an `s` (every noun amber counts takes one).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` with a comma every three digits, as a person reads counts:
/// `1,204`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Unix seconds as a UTC time a person reads, e.g. `2026-12-01 03:40Z`.
/// Days to a civil date by Howard Hinnant's `civil_from_days`, so no
/// calendar crate is needed for one line of output.
pub fn utc_minute(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let minute_of_day = secs.rem_euclid(86_400) / 60;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}Z",
        minute_of_day / 60,
        minute_of_day % 60
    )
}

/// A line diff of `old` and `new`: each line once, `  ` in both, `- `
/// only in `old`, `+ ` only in `new`, in order, by the longest common
/// subsequence. The table is quadratic: for small texts (a tool's
/// description, a plugin example's output).
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        } else {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{count, one_line, parse_moment, utc_minute};

    #[test]
    fn moments_parse_as_seconds_dates_and_times_and_round_trip() {
        assert_eq!(parse_moment("1764547200"), Ok(1_764_547_200));
        assert_eq!(parse_moment("1970-01-01"), Ok(0));
        assert_eq!(parse_moment("2026-12-01"), Ok(1_796_083_200));
        assert_eq!(
            parse_moment("2026-12-01T03:40Z"),
            Ok(1_796_083_200 + 3 * 3600 + 40 * 60)
        );
        assert_eq!(
            parse_moment("2026-12-01 03:40:05"),
            Ok(1_796_083_200 + 13_205)
        );
        assert_eq!(parse_moment("2024-02-29"), Ok(1_709_164_800));
        for secs in [0, 951_782_400, 1_764_561_600, 4_102_444_800, 1_795_923_600] {
            let shown = utc_minute(secs).replace(' ', "T");
            assert_eq!(parse_moment(&shown), Ok(secs), "{shown}");
        }
        for bad in [
            "2026-13-01",
            "2025-02-29",
            "2026-12-01T25:00",
            "soon",
            "2026-12",
        ] {
            let err = parse_moment(bad).unwrap_err().to_string();
            assert!(err.contains("is not a time"), "{bad}: {err}");
        }
    }

    #[test]
    fn counts_are_singular_for_one_only() {
        assert_eq!(count(1, "tool"), "1 tool");
        assert_eq!(count(2, "tool call"), "2 tool calls");
        assert_eq!(count(0, "contribution"), "0 contributions");
    }

    #[test]
    fn unix_seconds_read_as_utc_dates() {
        assert_eq!(utc_minute(0), "1970-01-01 00:00Z");
        assert_eq!(utc_minute(951_782_400), "2000-02-29 00:00Z");
        assert_eq!(utc_minute(1_795_923_659), "2026-11-29 03:40Z");
        assert_eq!(utc_minute(-1), "1969-12-31 23:59Z");
        assert_eq!(utc_minute(4_107_542_400), "2100-03-01 00:00Z");
    }

    #[test]
    fn whitespace_collapses_and_long_lines_end_in_an_ellipsis() {
        assert_eq!(one_line("fix\n the   bug", 72), "fix the bug");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("abcd", 4), "abcd");
    }
}
