//! The session loop: request lines read as bytes under the length cap
//! (a longer line is answered `too_large` and skipped unread), one response
//! line written and flushed per request line.

use super::line::salvage_id;
use super::respond;
use super::{handle_line_bytes, BatchState};
use crate::error::FacadeKind;
use crate::Error;
use std::io::{BufRead, Write};

/// The longest request line [`run_session`] reads by default: the parser's
/// default input limit (512 MiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 512 << 20;

/// Runs a whole session: reads requests from `input` until EOF and writes
/// one response line per request line to `output` (see [`run_session_with`]).
pub fn run_session(input: impl BufRead, output: impl Write) -> Result<(), SessionError> {
    run_session_with(&mut BatchState::new(), input, output)
}

/// Runs a session with `state`: one response line per request line, never
/// stopping at a bad line. Lines are read as bytes; a line longer than
/// [`BatchState::max_line_bytes`] is answered `too_large` as soon as the
/// limit is passed and the rest of it is skipped unread into memory, so a
/// session holds at most one line of that size. A `\r` before the `\n` is
/// dropped; a last line without `\n` is answered like any other.
pub fn run_session_with(
    state: &mut BatchState,
    mut input: impl BufRead,
    mut output: impl Write,
) -> Result<(), SessionError> {
    let mut line = Vec::new();
    let limit = state.max_line_bytes;
    while let Some(end) = read_line(&mut input, &mut line, limit).map_err(SessionError::Read)? {
        let response = match end {
            LineEnd::Complete => handle_line_bytes(state, &line),
            LineEnd::TooLong => {
                state.arena.reset();
                let arena = &state.arena;
                let e = Error::facade(
                    FacadeKind::TooLarge,
                    "",
                    format!("the request line is longer than the limit of {limit} bytes"),
                );
                respond::error(arena, salvage_id(arena, &line), &e)
            }
        };
        output
            .write_all(response.as_bytes())
            .and_then(|()| output.write_all(b"\n"))
            .and_then(|()| output.flush())
            .map_err(SessionError::Write)?;
        if end == LineEnd::TooLong {
            skip_line(&mut input).map_err(SessionError::Read)?;
        }
    }
    Ok(())
}

/// Why a batch session stopped: its input could not be read or its output
/// not written (bad request lines never stop it).
#[derive(Debug)]
pub enum SessionError {
    /// Reading the requests failed.
    Read(std::io::Error),
    /// Writing a response failed (a closed pipe is `ErrorKind::BrokenPipe`).
    Write(std::io::Error),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Read(e) => write!(f, "reading requests: {e}"),
            SessionError::Write(e) => write!(f, "writing responses: {e}"),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SessionError::Read(e) | SessionError::Write(e) => Some(e),
        }
    }
}

/// How [`read_line`] ended a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineEnd {
    /// A newline or the end of the input ended the line.
    Complete,
    /// The line passed the limit: `buf` holds its first `limit + 1` bytes,
    /// the rest is still unread.
    TooLong,
}

/// Reads one line (without its `\n`, and without a `\r` right before it)
/// into `buf` as bytes, holding at most `limit + 1` bytes. `Ok(None)` at
/// the end of the input.
fn read_line(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<LineEnd>> {
    buf.clear();
    let mut seen_any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        seen_any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(chunk.len());
        let room = limit.saturating_add(1) - buf.len();
        if take >= room {
            buf.extend_from_slice(&chunk[..room]);
            input.consume(room);
            return Ok(Some(LineEnd::TooLong));
        }
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take + usize::from(newline.is_some()));
        if newline.is_some() {
            break;
        }
    }
    if !seen_any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(LineEnd::Complete))
}

/// Drops the input up to and including the next newline.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                input.consume(n);
            }
        }
    }
}
