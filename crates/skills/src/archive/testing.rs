//! Building archives in tests (this crate's and the server's integration tests): well-formed
//! ones, and hostile ones with lying headers or special file types.

use std::io::{Cursor, Write};

use zip::result::ZipResult;
use zip::write::SimpleFileOptions;

/// Builds a zip archive in memory; the first error is reported by [`ZipBuilder::finish`].
pub struct ZipBuilder {
    zip: zip::ZipWriter<Cursor<Vec<u8>>>,
    error: Option<zip::result::ZipError>,
}

impl Default for ZipBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ZipBuilder {
    /// An empty archive.
    pub fn new() -> Self {
        ZipBuilder {
            zip: zip::ZipWriter::new(Cursor::new(Vec::new())),
            error: None,
        }
    }

    fn step(
        mut self,
        f: impl FnOnce(&mut zip::ZipWriter<Cursor<Vec<u8>>>) -> ZipResult<()>,
    ) -> Self {
        if self.error.is_none()
            && let Err(e) = f(&mut self.zip)
        {
            self.error = Some(e);
        }
        self
    }

    /// A deflated file.
    pub fn file(self, name: &str, content: &[u8]) -> Self {
        self.step(|z| {
            let options =
                SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
            z.start_file(name, options)?;
            z.write_all(content)?;
            Ok(())
        })
    }

    /// A file with Unix permissions.
    pub fn mode(self, name: &str, content: &[u8], mode: u32) -> Self {
        self.step(|z| {
            z.start_file(name, SimpleFileOptions::default().unix_permissions(mode))?;
            z.write_all(content)?;
            Ok(())
        })
    }

    /// A directory entry.
    pub fn dir(self, name: &str) -> Self {
        self.step(|z| z.add_directory(name, SimpleFileOptions::default()))
    }

    /// A symbolic link entry.
    pub fn symlink(self, name: &str, target: &str) -> Self {
        self.step(|z| z.add_symlink(name, target, SimpleFileOptions::default()))
    }

    /// A minimal valid `SKILL.md` under `root` (`""` or `"dir/"`).
    pub fn skill(self, root: &str, name: &str) -> Self {
        self.file(
            &format!("{root}SKILL.md"),
            format!("---\nname: {name}\ndescription: Test skill {name}.\n---\n# {name}\n")
                .as_bytes(),
        )
    }

    /// The archive bytes.
    pub fn finish(self) -> ZipResult<Vec<u8>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(self.zip.finish()?.into_inner())
    }
}

/// Rewrites the declared uncompressed size of member `name` in its local and central headers.
pub fn lie_about_size(mut zip: Vec<u8>, name: &str, size: u32) -> Vec<u8> {
    let name = name.as_bytes();
    for i in 0..zip.len().saturating_sub(46) {
        let sig = &zip[i..i + 4];
        if sig == b"PK\x03\x04" {
            let n = u16::from_le_bytes([zip[i + 26], zip[i + 27]]) as usize;
            if zip.get(i + 30..i + 30 + n) == Some(name) {
                zip[i + 22..i + 26].copy_from_slice(&size.to_le_bytes());
            }
        } else if sig == b"PK\x01\x02" {
            let n = u16::from_le_bytes([zip[i + 28], zip[i + 29]]) as usize;
            if zip.get(i + 46..i + 46 + n) == Some(name) {
                zip[i + 24..i + 28].copy_from_slice(&size.to_le_bytes());
            }
        }
    }
    zip
}

/// Sets the Unix mode (file type included) of `name` in the central directory.
pub fn set_unix_mode(mut zip: Vec<u8>, name: &str, mode: u32) -> Vec<u8> {
    let name = name.as_bytes();
    for i in 0..zip.len().saturating_sub(46) {
        if &zip[i..i + 4] == b"PK\x01\x02" {
            let n = u16::from_le_bytes([zip[i + 28], zip[i + 29]]) as usize;
            if zip.get(i + 46..i + 46 + n) == Some(name) {
                zip[i + 5] = 3; // made by Unix
                zip[i + 38..i + 42].copy_from_slice(&(mode << 16).to_le_bytes());
            }
        }
    }
    zip
}
