//! Drive smpatch as a co-process over its batch protocol: one JSON request
//! per line on stdin, one JSON response per line on stdout, in order (the
//! protocol is described in the `smpatch::batch` docs). Any language can do
//! this with `smpatch batch`; this example starts itself as the co-process
//! (`batch_coprocess serve` runs `smpatch::batch::run_session`, which is
//! what `smpatch batch` runs), so it needs no installed binary.
//!
//! `cargo run -p smpatch-examples --example batch_coprocess`

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn main() -> std::io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("serve") {
        let stdin = std::io::stdin();
        return smpatch::batch::run_session(stdin.lock(), std::io::stdout().lock())
            .map_err(std::io::Error::other);
    }
    // In your program: Command::new("smpatch").arg("batch").
    let mut child = Command::new(std::env::current_exe()?)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let to_child = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("no stdin"))?;
    let from_child = child
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("no stdout"))?;
    talk(to_child, BufReader::new(from_child))?; // drops stdin: EOF ends the session
    assert!(child.wait()?.success());
    Ok(())
}

/// Sends the requests one line at a time and checks the answers.
fn talk(mut to: impl Write, mut from: impl BufRead) -> std::io::Result<()> {
    let requests = [
        r#"{"id": 1, "op": "apply", "schema": {"builtin": "apps/v1/Deployment"}, "original": {"spec": {"replicas": 1}}, "patch": {"spec": {"replicas": 12345678901234567890}}}"#,
        r#"{"id": 2, "op": "create2", "schema": {"builtin": "v1/ConfigMap"}, "original": {"data": {"a": "1"}}, "modified": {"data": {"b": "2"}}}"#,
        r#"{"id": 3, "op": "apply", "original": {}, "patch": [1]}"#,
    ];
    let mut responses = Vec::new();
    for request in requests {
        // One line out, one line back: the session answers each request
        // before reading the next, so the two sides never deadlock.
        writeln!(to, "{request}")?;
        to.flush()?;
        let mut line = String::new();
        from.read_line(&mut line)?;
        println!("{}", line.trim_end());
        responses.push(line.trim_end().to_owned());
    }
    // Numbers keep their literal text, however large.
    assert_eq!(
        responses[0],
        r#"{"id":1,"ok":{"spec":{"replicas":12345678901234567890}}}"#
    );
    assert_eq!(responses[1], r#"{"id":2,"ok":{"data":{"b":"2","a":null}}}"#);
    // A bad request answers an error and the session goes on.
    assert!(
        responses[2].starts_with(r#"{"id":3,"error":{"kind":"#),
        "{}",
        responses[2]
    );
    Ok(())
}

/// The same conversation with the session on a thread at the other end of a
/// socket pair (a test binary cannot serve as the co-process: its test
/// harness owns its arguments and writes to stdout).
#[cfg(unix)]
#[test]
fn runs() {
    use std::os::unix::net::UnixStream;
    let (ours, theirs) = UnixStream::pair().unwrap();
    let server = std::thread::spawn(move || {
        let reader = BufReader::new(theirs.try_clone().unwrap());
        smpatch::batch::run_session(reader, theirs)
    });
    talk(&ours, BufReader::new(&ours)).unwrap();
    ours.shutdown(std::net::Shutdown::Write).unwrap();
    server.join().unwrap().unwrap();
}
