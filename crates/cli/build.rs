//! Link options of the `antler` binary in release builds on x86-64 Linux (glibc), where
//! rustc links with its own LLD.
//!
//! - The functions listed in `link-order.txt` (what the server runs starting and serving,
//!   written by `scripts/link-order.py`) are placed first and together. The kernel maps code
//!   64 KiB around each page first touched; left in the compiler's order those functions
//!   touch most of the 30 MB of code, and all of it stays resident.
//! - Relative relocations are packed (`DT_RELR`, glibc 2.36+): the loader reads a few
//!   kilobytes instead of 2 MB of relocation entries, which then stayed resident too.
//!
//! Both are left out where rustc does not link with its own LLD (a toolchain without it, as
//! some distributions build theirs, or a linker chosen in cargo's configuration or
//! `RUSTFLAGS`), and with `ANTLER_LINK_ORDER=off`.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    println!("cargo:rerun-if-env-changed=ANTLER_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let var = |name: &str| env::var(name).unwrap_or_default();
    let release = var("PROFILE") == "release";
    let target = var("TARGET");
    // A linker chosen in cargo's configuration or the flags may not be LLD.
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = !var("RUSTC_LINKER").is_empty()
        || ["linker", "fuse-ld", "link-self-contained"]
            .iter()
            .any(|flag| flags.contains(flag));
    let off = matches!(
        var("ANTLER_LINK_ORDER").as_str(),
        "off" | "0" | "false" | "no"
    );
    // Last: the only check that runs a program.
    if !release
        || target != "x86_64-unknown-linux-gnu"
        || own_linker
        || off
        || !ships_lld(&var("RUSTC"), &target)
    {
        return;
    }
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("link-order.txt");
    let mut args = vec!["-Wl,-z,pack-relative-relocs".to_owned()];
    // Without the list (a trimmed copy of the sources) the code keeps the compiler's order.
    if order.is_file() {
        args.push(format!("-Wl,--symbol-ordering-file={}", order.display()));
        // A function renamed since the list was written is simply not placed.
        args.push("-Wl,--no-warn-symbol-ordering".to_owned());
    }
    for arg in args {
        println!("cargo:rustc-link-arg-bin=antler={arg}");
    }
}

/// Whether the toolchain carries the LLD rustc links with by default on `target`
/// (`<sysroot>/lib/rustlib/<target>/bin/gcc-ld/ld.lld`); without it the system's linker runs,
/// which may not know the ordering option.
fn ships_lld(rustc: &str, target: &str) -> bool {
    let Ok(out) = Command::new(rustc).args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    out.status.success()
        && sysroot
            .join("lib/rustlib")
            .join(target)
            .join("bin/gcc-ld/ld.lld")
            .is_file()
}
