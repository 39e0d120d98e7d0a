//! Feeds arbitrary text to the SKILL.md frontmatter parser and validator, in both modes.
//! They must never panic, and a file that validates must have a usable name that passes the
//! rules of the mode it was validated in.

#![no_main]

use antler_skills::frontmatter::parse;
use antler_skills::validate::{Mode, inspect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse(text);
    for mode in [Mode::Spec, Mode::Reference, Mode::Strict, Mode::Lenient] {
        let inspection = inspect(text, Some("fuzz-skill"), mode);
        if inspection.is_valid() {
            let parsed = inspection.parsed.as_ref().expect("a valid file was parsed");
            let name = parsed.frontmatter.name.as_deref().unwrap_or_default();
            assert!(!name.is_empty(), "valid without a name: {text:?}");
            assert!(
                antler_skills::name::check_usable_name(name).is_ok(),
                "loaded with an unusable name {name:?}"
            );
            match mode {
                // The validator holds names to the specification.
                Mode::Spec | Mode::Reference => assert!(
                    antler_skills::name::check_name(name).is_ok(),
                    "the validator accepted the name {name:?}"
                ),
                // Installs make a folder of the name: never a hidden one.
                Mode::Strict => assert!(!name.starts_with('.'), "installs as hidden: {name:?}"),
                Mode::Lenient => {}
            }
        }
        let _ = inspection.error_summary();
        let _ = inspection.warnings();
        let _ = inspection.warning_details();
    }
});
