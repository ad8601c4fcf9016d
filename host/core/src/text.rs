//! Text shown to people in one line: a session's title, a tool call in the
//! terminal, a time.

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

#[cfg(test)]
mod tests {
    use super::{one_line, utc_minute};

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
