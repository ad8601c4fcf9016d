//! The memory FTS query builder on any question: the MATCH expressions it
//! builds are always valid FTS5, so user text can never be a syntax error.
#![no_main]

use std::cell::RefCell;

use amber_memory::fts_query;
use rusqlite::Connection;

thread_local! {
    static DB: RefCell<Connection> = RefCell::new({
        let db = Connection::open_in_memory().expect("an in-memory database");
        db.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(body);
             INSERT INTO t(body) VALUES ('flaky build cache test'), ('near or and not');",
        )
        .expect("an FTS5 table");
        db
    });
}

fn runs(expression: &str) -> Result<(), String> {
    DB.with(|db| {
        let db = db.borrow();
        let mut statement = db
            .prepare_cached("SELECT count(*) FROM t WHERE t MATCH ?1")
            .map_err(|e| e.to_string())?;
        statement
            .query_row([expression], |row| row.get::<_, i64>(0))
            .map(drop)
            .map_err(|e| e.to_string())
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let question = String::from_utf8_lossy(data);
    let terms = fts_query::terms(&question);
    assert!(terms.len() <= fts_query::MAX_TERMS);
    for expression in [fts_query::any_of(&terms), fts_query::at_least_two(&terms)]
        .into_iter()
        .flatten()
    {
        if let Err(e) = runs(&expression) {
            panic!("{question:?} gave the MATCH {expression:?}, which FTS5 refuses: {e}");
        }
    }
});
