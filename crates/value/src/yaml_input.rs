//! The input the YAML reader hands saphyr-parser: its `StrInput` with a
//! shorter declared look-ahead, so that no plain scalar reallocates.
//!
//! saphyr-parser's plain-scalar scanner starts each scalar's text in a
//! 32-byte `String` and, after the first character, reserves the input's
//! `bufmaxlen` more (128 for `StrInput`): a `realloc` for every plain scalar,
//! about 13 % of the instructions reading Kubernetes-shaped YAML (docs/BENCHMARKS.md,
//! "yaml-speed"). Declaring 31 keeps that reservation inside the first 32
//! bytes. `StrInput` holds the whole text, so its look-ahead is a no-op and
//! the declared length only sets how many characters the scanner takes
//! between look-ahead calls; every other method is `StrInput`'s own.
//!
//! Must not: change what is read (the YAML tests and the conformance cases
//! read through it).

use saphyr_parser::input::SkipTabs;
use saphyr_parser::{Input, StrInput};

/// The look-ahead declared to the scanner: one less than the plain-scalar
/// scanner's first allocation (32 bytes), which holds the first character.
const LOOKAHEAD: usize = 31;

/// `StrInput` declaring a [`LOOKAHEAD`]-character buffer.
pub(crate) struct ShortLookahead<'a>(StrInput<'a>);

impl<'a> ShortLookahead<'a> {
    pub(crate) fn new(input: &'a str) -> Self {
        Self(StrInput::new(input))
    }
}

impl Input for ShortLookahead<'_> {
    #[inline]
    fn lookahead(&mut self, count: usize) {
        self.0.lookahead(count);
    }
    #[inline]
    fn buflen(&self) -> usize {
        self.0.buflen()
    }
    #[inline]
    fn bufmaxlen(&self) -> usize {
        LOOKAHEAD
    }
    #[inline]
    fn buf_is_empty(&self) -> bool {
        self.0.buf_is_empty()
    }
    #[inline]
    fn raw_read_ch(&mut self) -> char {
        self.0.raw_read_ch()
    }
    #[inline]
    fn raw_read_non_breakz_ch(&mut self) -> Option<char> {
        self.0.raw_read_non_breakz_ch()
    }
    #[inline]
    fn skip(&mut self) {
        self.0.skip();
    }
    #[inline]
    fn skip_n(&mut self, count: usize) {
        self.0.skip_n(count);
    }
    #[inline]
    fn peek(&self) -> char {
        self.0.peek()
    }
    #[inline]
    fn peek_nth(&self, n: usize) -> char {
        self.0.peek_nth(n)
    }
    #[inline]
    fn peek_opt(&self) -> Option<char> {
        self.0.peek_opt()
    }
    #[inline]
    fn look_ch(&mut self) -> char {
        self.0.look_ch()
    }
    #[inline]
    fn next_char_is(&self, c: char) -> bool {
        self.0.next_char_is(c)
    }
    #[inline]
    fn nth_char_is(&self, n: usize, c: char) -> bool {
        self.0.nth_char_is(n, c)
    }
    #[inline]
    fn next_2_are(&self, c1: char, c2: char) -> bool {
        self.0.next_2_are(c1, c2)
    }
    #[inline]
    fn next_3_are(&self, c1: char, c2: char, c3: char) -> bool {
        self.0.next_3_are(c1, c2, c3)
    }
    #[inline]
    fn next_is_document_indicator(&self) -> bool {
        self.0.next_is_document_indicator()
    }
    #[inline]
    fn next_is_document_start(&self) -> bool {
        self.0.next_is_document_start()
    }
    #[inline]
    fn next_is_document_end(&self) -> bool {
        self.0.next_is_document_end()
    }
    #[inline]
    fn skip_ws_to_eol(&mut self, skip_tabs: SkipTabs) -> (usize, Result<SkipTabs, &'static str>) {
        self.0.skip_ws_to_eol(skip_tabs)
    }
    #[inline]
    fn next_can_be_plain_scalar(&self, in_flow: bool) -> bool {
        self.0.next_can_be_plain_scalar(in_flow)
    }
    #[inline]
    fn next_is_blank_or_break(&self) -> bool {
        self.0.next_is_blank_or_break()
    }
    #[inline]
    fn next_is_blank_or_breakz(&self) -> bool {
        self.0.next_is_blank_or_breakz()
    }
    #[inline]
    fn next_is_blank(&self) -> bool {
        self.0.next_is_blank()
    }
    #[inline]
    fn next_is_break(&self) -> bool {
        self.0.next_is_break()
    }
    #[inline]
    fn next_is_breakz(&self) -> bool {
        self.0.next_is_breakz()
    }
    #[inline]
    fn next_is_z(&self) -> bool {
        self.0.next_is_z()
    }
    #[inline]
    fn next_is_flow(&self) -> bool {
        self.0.next_is_flow()
    }
    #[inline]
    fn next_is_digit(&self) -> bool {
        self.0.next_is_digit()
    }
    #[inline]
    fn next_is_alpha(&self) -> bool {
        self.0.next_is_alpha()
    }
    #[inline]
    fn skip_while_non_breakz(&mut self) -> usize {
        self.0.skip_while_non_breakz()
    }
    #[inline]
    fn skip_while_blank(&mut self) -> usize {
        self.0.skip_while_blank()
    }
    #[inline]
    fn fetch_while_is_alpha(&mut self, out: &mut String) -> usize {
        self.0.fetch_while_is_alpha(out)
    }
    #[inline]
    fn fetch_while_is_yaml_non_space(&mut self, out: &mut String) -> usize {
        self.0.fetch_while_is_yaml_non_space(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use saphyr_parser::Parser;

    /// The events (with their spans) of a parser, up to its first error.
    fn events<T: Input>(mut p: Parser<'_, T>) -> Vec<String> {
        let mut out = Vec::new();
        // The parser keeps reporting an error once it has met one.
        while let Some(ev) = p.next_event() {
            let failed = ev.is_err();
            out.push(format!("{ev:?}"));
            if failed {
                break;
            }
        }
        out
    }

    /// Plain scalars of every length around the declared look-ahead, in
    /// block and flow context, multi-line, deeply indented block scalars
    /// and bad input: the same events, spans and errors as `StrInput`.
    #[test]
    fn reads_what_str_input_reads() {
        let mut docs: Vec<String> = Vec::new();
        for len in [1, 2, 29, 30, 31, 32, 33, 61, 62, 63, 64, 127, 128, 129, 300] {
            let w: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            docs.push(format!("k: {w}\n{w}: [{w}, {w} x]\n- {w}\n"));
            docs.push(format!(
                "a:\n  b: {w}\n   {w} é\n  c: |\n{}{w}\n",
                " ".repeat(len)
            ));
            docs.push(format!("x: {w} # c\ny: {w}\n...\n--- {w}\n"));
            docs.push(format!("{}: |2\n  {w}\n", w));
        }
        docs.push("a: [b, {c: d}]\n".into());
        docs.push("a: b: c\n".into());
        docs.push("- 日本語 ✓ 🚀 text\n- \"q\"\n".into());
        for d in &docs {
            assert_eq!(
                events(Parser::new(ShortLookahead::new(d))),
                events(Parser::new_from_str(d)),
                "{d:?}"
            );
        }
    }
}
