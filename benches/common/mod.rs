//! What the benches that time `kld` beside another program share: running a
//! command to completion with its own peak RSS (`wait4`'s rusage, which
//! `Child::wait` does not give).

use std::process::{Command, Stdio};
use std::time::Instant;

/// Runs a command to completion; (seconds, peak RSS in MB, stdout). The
/// command must exit 0; its stderr goes to the bench's.
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
