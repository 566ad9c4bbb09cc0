//! A results database is data, never code: kld runs none of the SQL a file
//! defines. Views are refused by [`super::open`]; this module keeps the rest
//! from running. The connection is opened with SQLite's `trusted_schema`
//! off and its defensive flag on, and an authorizer refuses every read of a
//! column the file computes itself: a generated column (`GENERATED ALWAYS
//! AS (zeroblob(400000000))` would be evaluated on every row read), a
//! hidden one, any column of a virtual table (its module's code).
//! Karenina's schema has none of them, and SQLAlchemy names the columns it
//! reads, so Karenina never evaluates a column it does not know: kld reads
//! the columns it names ([`plain_columns`] for a whole row), and a column it
//! needs that is computed is a located error naming table and column.

use crate::error::Result;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::Connection;
use std::collections::HashSet;
use std::path::Path;

/// Why a column is computed by the file, if it is (`hidden` of `PRAGMA
/// table_xinfo`).
fn computed(hidden: i64) -> Option<&'static str> {
    match hidden {
        2 | 3 => Some("a generated column (SQL the database defines)"),
        1 => Some("a hidden column"),
        // (A default is read for rows written before its column was added,
        // and SQLite reads only a constant's value there, never a call.)
        _ => None,
    }
}

/// The columns of every table of the database that the file computes
/// itself, as (table, column, why).
fn computed_columns(c: &Connection) -> rusqlite::Result<Vec<(String, String, &'static str)>> {
    let tables: Vec<(String, bool)> = c
        .prepare("SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table'")?
        .query_map([], |r| {
            let sql: String = r.get(1)?;
            let head: String = sql.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
            Ok((r.get(0)?, head.eq_ignore_ascii_case("CREATE VIRTUAL")))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for (t, virtual_table) in tables {
        if virtual_table {
            // (Its columns are not asked for: that would connect its module.)
            out.push((t, "*".to_string(), "a virtual table (its module's code)"));
            continue;
        }
        let mut st = c.prepare("SELECT name, hidden FROM pragma_table_xinfo(?1)")?;
        let cols = st.query_map([&t], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        for col in cols {
            let (name, hidden) = col?;
            if let Some(why) = computed(hidden) {
                out.push((t.clone(), name, why));
            }
        }
    }
    Ok(out)
}

/// Sets the connection up so that no SQL of the file runs: `trusted_schema`
/// off, the defensive flag on, and an authorizer that refuses to read a
/// computed column (the statement then fails to prepare: `access to TABLE.COLUMN is
/// prohibited`, which [`super::db_err`] words).
pub(super) fn harden(c: &Connection) -> rusqlite::Result<()> {
    c.pragma_update(None, "trusted_schema", false)?;
    c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    let computed: HashSet<(String, String)> = computed_columns(c)?
        .into_iter()
        .map(|(t, col, _)| (t.to_ascii_lowercase(), col.to_ascii_lowercase()))
        .collect();
    if computed.is_empty() {
        return Ok(());
    }
    c.authorizer(Some(move |ctx: AuthContext<'_>| match ctx.action {
        AuthAction::Read {
            table_name,
            column_name,
        } if {
            let t = table_name.to_ascii_lowercase();
            computed.contains(&(t.clone(), column_name.to_ascii_lowercase()))
                || computed.contains(&(t, "*".to_string()))
        } =>
        {
            Authorization::Deny
        }
        _ => Authorization::Allow,
    }));
    Ok(())
}

/// The columns of `table` a whole-row read names: every column stored as
/// written, none the file computes (a computed column Karenina does not
/// know is never read, as SQLAlchemy never reads it), in table order, each
/// with its declared type (upper case).
pub(super) fn plain_columns(
    file: &Path,
    c: &Connection,
    table: &str,
) -> Result<Vec<(String, String)>> {
    let mut st = c
        .prepare("SELECT name, COALESCE(type, ''), hidden FROM pragma_table_xinfo(?1)")
        .map_err(|e| super::db_err(file, e))?;
    let rows = st
        .query_map([table], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?.to_ascii_uppercase(),
                r.get::<_, i64>(2)?,
            ))
        })
        .map_err(|e| super::db_err(file, e))?;
    let mut out = Vec::new();
    for row in rows {
        let (name, decl, hidden) = row.map_err(|e| super::db_err(file, e))?;
        if computed(hidden).is_none() {
            out.push((name, decl));
        }
    }
    Ok(out)
}

/// `name` quoted as an SQL identifier.
pub(super) fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
