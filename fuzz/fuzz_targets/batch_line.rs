//! Batch protocol lines through `smpatch::batch::handle_line`: every line
//! answers one JSON object with an `id` and exactly one of `ok` / `error`.
//! The raw bytes also run as a whole session (`run_session_with`), which
//! must answer exactly one line per input line, whatever the bytes.
//! Requests naming a schema file are skipped (the fuzzer must not make the
//! process read arbitrary paths such as `/dev/zero`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use smpatch::batch::{handle_line, run_session_with, BatchState};

fn names_a_file(line: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(v) => v.get("schema").and_then(|s| s.get("file")).is_some(),
        // serde_json and our reader may disagree on odd numbers; be safe.
        Err(_) => line.contains("file") || line.contains("\\u"),
    }
}

fuzz_target!(|data: &[u8]| {
    let has = |needle: &[u8]| data.windows(needle.len()).any(|w| w == needle);
    if !has(b"file") && !has(b"\\u") {
        let mut out = Vec::new();
        let mut state = BatchState::with_max_line_bytes(4096);
        run_session_with(&mut state, data, &mut out).expect("in-memory session");
        let newlines = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
        let lines = newlines(data) + usize::from(!data.is_empty() && !data.ends_with(b"\n"));
        assert_eq!(newlines(&out), lines, "one answer per line");
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut state = BatchState::new();
    for line in text.lines().take(8) {
        if names_a_file(line) {
            continue;
        }
        let out = handle_line(&mut state, line);
        assert!(!out.contains('\n'), "response spans lines: {out}");
        let v: serde_json::Value = serde_json::from_str(&out)
            .or_else(|_| {
                // Our numbers may be out of serde_json's range: check shape only.
                smpatch_value::parse_json(
                    &smpatch_value::Arena::new(),
                    out.as_bytes(),
                    &smpatch_value::ParseOptions {
                        max_depth: usize::MAX,
                        ..Default::default()
                    },
                )
                .map(|_| serde_json::json!({"id": null, "ok": null}))
            })
            .unwrap_or_else(|e| panic!("response is not JSON ({e}): {out}"));
        let obj = v.as_object().expect("response is an object");
        assert!(obj.contains_key("id"), "response without id: {out}");
        assert!(
            obj.contains_key("ok") != obj.contains_key("error"),
            "response needs exactly one of ok/error: {out}"
        );
    }
});
