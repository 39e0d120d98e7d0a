//! Keeping command output within a cap: the head and the tail are kept, the middle is
//! replaced by a marker saying how much was skipped.

use std::collections::VecDeque;

/// Collects one output stream.
#[derive(Debug)]
pub struct CappedOutput {
    half: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl CappedOutput {
    /// Keeps at most `cap` bytes (half head, half tail).
    pub fn new(cap: usize) -> Self {
        let half = cap.max(2) / 2;
        CappedOutput {
            half,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    /// Adds bytes.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.head.len() < self.half {
            let take = (self.half - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.half {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.half..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.half);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }

    /// The text (lossy UTF-8) and how many bytes were skipped.
    pub fn finish(self) -> (String, u64) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let skipped = self.total - kept;
        let head = String::from_utf8_lossy(&self.head).into_owned();
        let tail: Vec<u8> = self.tail.into_iter().collect();
        let tail = String::from_utf8_lossy(&tail);
        if skipped == 0 {
            (head + &tail, 0)
        } else {
            (
                format!("{head}\n\n[... {skipped} bytes of output skipped ...]\n\n{tail}"),
                skipped,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut o = CappedOutput::new(100);
        o.push(b"hello ");
        o.push(b"world");
        assert_eq!(o.finish(), ("hello world".to_string(), 0));
    }

    #[test]
    fn long_output_keeps_head_and_tail_with_a_marker() {
        let mut o = CappedOutput::new(10);
        for chunk in [&b"abcdefgh"[..], b"ijklmnop", b"qrstuvwxyz"] {
            o.push(chunk);
        }
        let (text, skipped) = o.finish();
        assert_eq!(skipped, 16);
        assert!(text.starts_with("abcde"), "{text}");
        assert!(text.ends_with("vwxyz"), "{text}");
        assert!(text.contains("16 bytes of output skipped"));
    }

    #[test]
    fn many_small_pushes_keep_the_latest_tail() {
        let mut o = CappedOutput::new(6);
        for b in b"0123456789" {
            o.push(&[*b]);
        }
        let (text, skipped) = o.finish();
        assert!(text.starts_with("012") && text.ends_with("789"), "{text}");
        assert_eq!(skipped, 4);
    }
}
