//! What the benches that time `kld` beside another program share: running a
//! command to completion with its own peak RSS (`wait4`'s rusage, which
//! `Child::wait` does not give), and scaling results exports and databases.
//! (Benches that need the tests' helpers mount `tests/common` as `common`.)

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs a command to completion; (seconds, peak RSS in MB, stdout). The
/// command must exit 0; its stderr goes to the bench's. The peak is
/// `wait4`'s `ru_maxrss`, which on Linux starts at this process's RSS when
/// the child is forked and keeps it across exec: measure commands before
/// the bench itself holds much.
#[allow(dead_code)]
pub fn measure(cmd: &mut Command) -> (f64, f64, String) {
    run(cmd, true)
}

/// [`measure`] for commands that may exit non-zero (a load that reports
/// bad inputs and goes on); their stderr is dropped.
#[allow(dead_code)]
pub fn measure_quiet(cmd: &mut Command) -> (f64, f64, String) {
    run(cmd, false)
}

#[allow(clippy::zombie_processes)]
fn run(cmd: &mut Command, strict: bool) -> (f64, f64, String) {
    let out_file = tempfile::NamedTempFile::new().unwrap();
    let t = Instant::now();
    let child = cmd
        .stdout(out_file.reopen().unwrap())
        .stderr(if strict {
            Stdio::inherit()
        } else {
            Stdio::null()
        })
        .spawn()
        .unwrap();
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    let secs = t.elapsed().as_secs_f64();
    let ok = libc::WIFEXITED(status) && (!strict || libc::WEXITSTATUS(status) == 0);
    assert!(ok, "{cmd:?} failed");
    let out = std::fs::read_to_string(out_file.path()).unwrap();
    (secs, ru.ru_maxrss as f64 / 1024.0, out)
}

/// An export scaled to `n` rows: its rows repeated with fresh result IDs
/// (`seed` keeps them apart across files) and replicate numbers.
#[allow(dead_code)]
pub fn scale_json(src: &Path, dst: &Path, n: usize, seed: usize) -> u64 {
    let text = std::fs::read_to_string(src).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines
        .map(|l| l.trim_end_matches(','))
        .filter(|l| l.starts_with('{'))
        .collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dst).unwrap());
    writeln!(out, "{header}").unwrap();
    for i in 0..n {
        let row = rows[i % rows.len()];
        let at = row.find("\"result_id\": \"").unwrap() + 14;
        let id = format!("{:016x}", (seed as u64) << 40 | i as u64);
        let mut line = format!("{}{}{}", &row[..at], id, &row[at + 16..]);
        if let Some(r) = line.find("\"replicate\": ") {
            let end = r + 13 + line[r + 13..].find([',', '}']).unwrap();
            line.replace_range(r + 13..end, &(i / rows.len() + 1).to_string());
        }
        out.write_all(line.as_bytes()).unwrap();
        out.write_all(if i + 1 < n { b",\n" } else { b"\n" })
            .unwrap();
    }
    out.write_all(b"]}\n").unwrap();
    out.flush().unwrap();
    std::fs::metadata(dst).unwrap().len()
}

/// Repeats each run's result rows of the database at `dst` to `n` rows,
/// with fresh result IDs, in place (`python3`'s sqlite3).
#[allow(dead_code)]
pub fn pad_db(dst: &Path, n: usize) -> u64 {
    let script = r#"
import sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
cols = [r[1] for r in c.execute("PRAGMA table_info(verification_results)") if r[1] != "id"]
names = ", ".join(cols)
pick = ", ".join("printf('%016x', ?2 + abs(random() % 1000000000000))" if x == "metadata_result_id" else x for x in cols)
for seed, (run,) in enumerate(c.execute("SELECT id FROM verification_runs ORDER BY created_at").fetchall()):
    while True:
        have = c.execute("SELECT COUNT(*) FROM verification_results WHERE run_id = ?", (run,)).fetchone()[0]
        if have >= n:
            break
        c.execute(f"INSERT INTO verification_results ({names}) SELECT {pick} FROM verification_results "
                  f"WHERE run_id = ?1 ORDER BY id LIMIT ?3", (run, seed << 40, n - have))
c.commit()
c.execute("VACUUM")
"#;
    let st = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dst)
        .arg(n.to_string())
        .status()
        .expect("python3");
    assert!(st.success());
    std::fs::metadata(dst).unwrap().len()
}
