//! Feeds arbitrary bytes to the `.skill` archive inspector, and extracts what it accepts.
//! The inspector must never panic, never allocate without bound, and never plan a write
//! outside the destination.

#![no_main]

use std::io::Cursor;

use antler_skills::archive::{ArchiveLimits, extract, inspect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = ArchiveLimits {
        max_entries: 64,
        max_total_bytes: 1 << 20,
        max_file_bytes: 256 << 10,
        ..ArchiveLimits::default()
    };
    let Ok(inspection) = inspect(Cursor::new(data), &limits) else {
        return;
    };
    for entry in &inspection.plan {
        assert!(!entry.dest.starts_with('/'), "absolute destination {:?}", entry.dest);
        assert!(
            !entry.dest.split('/').any(|c| c == ".." || c.is_empty()),
            "unsafe destination {:?}",
            entry.dest
        );
    }
    if inspection.is_installable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let dest = dir.path().join("skill");
        std::fs::create_dir(&dest).expect("mkdir");
        let _ = extract(Cursor::new(data), &inspection.plan, &dest, &limits);
        // Nothing may appear next to the destination.
        let siblings: Vec<_> = std::fs::read_dir(dir.path()).expect("read").collect();
        assert_eq!(siblings.len(), 1, "extraction wrote outside its destination");
    }
});
