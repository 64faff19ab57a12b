//! The streaming writers (`write_*_to`) write the same bytes as the `String`
//! writers, in chunks, and stop at the first write error.

#![allow(clippy::unwrap_used)] // tests may unwrap (docs/TEAM-NOTES.md)

use smpatch_value::{
    parse_json, to_json_pretty, to_json_string, to_yaml_string, write_json_pretty_to,
    write_json_to, write_yaml_to, Arena, ParseOptions,
};
use std::io::Write;

/// A writer that records the size of each write and fails after `budget` bytes.
struct Recorder {
    bytes: Vec<u8>,
    writes: Vec<usize>,
    budget: usize,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.budget {
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "closed",
            ));
        }
        self.bytes.extend_from_slice(buf);
        self.writes.push(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn big_document() -> String {
    let items: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"name":"item-{i}","n":{i}.50,"tags":["a","b"],"big":123456789012345678901234567890}}"#))
        .collect();
    format!(
        r#"{{"items":[{}],"deep":{}1{}}}"#,
        items.join(","),
        "[".repeat(300),
        "]".repeat(300)
    )
}

#[test]
fn streamed_output_equals_string_output_and_comes_in_chunks() {
    let text = big_document();
    let arena = Arena::new();
    let opts = ParseOptions {
        max_depth: 1000,
        ..ParseOptions::default()
    };
    let v = parse_json(&arena, text.as_bytes(), &opts).unwrap();
    type Writer = fn(&mut Recorder, &smpatch_value::Value<'_>) -> std::io::Result<()>;
    let cases: [(Writer, String); 3] = [
        (|w, v| write_json_to(w, v), to_json_string(&v)),
        (|w, v| write_json_pretty_to(w, v), to_json_pretty(&v)),
        (|w, v| write_yaml_to(w, v), to_yaml_string(&v)),
    ];
    for (write, expected) in cases {
        let mut out = Recorder {
            bytes: Vec::new(),
            writes: Vec::new(),
            budget: usize::MAX,
        };
        write(&mut out, &v).unwrap();
        assert_eq!(String::from_utf8(out.bytes).unwrap(), expected);
        assert!(
            out.writes.len() > 10,
            "written in chunks: {:?}",
            out.writes.len()
        );
        assert!(
            out.writes.iter().all(|&n| n < 256 << 10),
            "no chunk holds the document"
        );
        // A failing writer: the error comes back, writing stops.
        let mut out = Recorder {
            bytes: Vec::new(),
            writes: Vec::new(),
            budget: 100_000,
        };
        let e = write(&mut out, &v).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
        assert!(out.bytes.len() <= 100_000);
    }
}
