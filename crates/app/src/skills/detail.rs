//! One skill as its details page shows it: the listing entry, the `SKILL.md` body and the
//! file list, read from disk on demand (bodies can be large, so they are never cached).

use antler_protocol::skills::{SkillCategory, SkillDetail};

use super::{SkillOpError, SkillsService};
use crate::identity::Caller;

impl SkillsService {
    /// One of the skills `caller` sees, with its body and files; `category` is needed when
    /// the name is in more than one. A skill whose folder went away since the last scan is
    /// [`SkillOpError::Vanished`].
    pub async fn detail(
        &self,
        caller: &Caller,
        name: &str,
        category: Option<SkillCategory>,
    ) -> Result<SkillDetail, SkillOpError> {
        let snapshot = self.snapshot_for(caller).await?;
        let (skill, loaded) = snapshot.find(name, category)?;
        let dir = loaded.dir.clone();
        let (body, files) = tokio::task::spawn_blocking(move || {
            let body = antler_skills::files::read_body(&dir);
            (body, antler_skills::files::list_files(&dir))
        })
        .await?;
        let body = body.map_err(|_| SkillOpError::Vanished(name.to_string()))?;
        Ok(SkillDetail {
            skill: skill.clone(),
            body,
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{App, Config};

    /// A one-shot app over a skills directory holding `public/pdf`.
    async fn app_with_pdf() -> (tempfile::TempDir, App) {
        let root = tempfile::tempdir().unwrap();
        let pdf = root.path().join("skills/public/pdf");
        std::fs::create_dir_all(pdf.join("scripts")).unwrap();
        std::fs::write(
            pdf.join("SKILL.md"),
            "---\nname: pdf\ndescription: Reads PDFs.\n---\n# pdf\n\nDo the thing.\n",
        )
        .unwrap();
        std::fs::write(pdf.join("scripts/run.py"), "print(1)\n").unwrap();
        let config = Config {
            data_dir: root.path().join("data"),
            skills_dir: root.path().join("skills"),
            ..Config::default()
        };
        let app = App::start_one_shot(config).await.unwrap();
        (root, app)
    }

    #[tokio::test]
    async fn detail_reads_the_body_without_frontmatter_and_lists_every_file() {
        let (_root, app) = app_with_pdf().await;
        let detail = app
            .skills
            .detail(&Caller::local(), "pdf", None)
            .await
            .unwrap();
        assert_eq!(detail.skill.name, "pdf");
        assert_eq!(detail.skill.category, SkillCategory::Public);
        assert_eq!(detail.body, "# pdf\n\nDo the thing.\n");
        let paths: Vec<&str> = detail.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "scripts/run.py"]);
    }

    #[tokio::test]
    async fn detail_of_an_unknown_name_or_category_is_not_found() {
        let (_root, app) = app_with_pdf().await;
        let caller = Caller::local();
        let unknown = app.skills.detail(&caller, "nope", None).await;
        assert!(matches!(unknown, Err(SkillOpError::NotFound(n)) if n == "nope"));
        let elsewhere = app
            .skills
            .detail(&caller, "pdf", Some(SkillCategory::Custom))
            .await;
        assert!(matches!(elsewhere, Err(SkillOpError::NotFound(_))));
    }

    #[tokio::test]
    async fn detail_of_a_skill_deleted_behind_the_catalogs_back_says_it_vanished() {
        let (root, app) = app_with_pdf().await;
        std::fs::remove_dir_all(root.path().join("skills/public/pdf")).unwrap();
        let gone = app.skills.detail(&Caller::local(), "pdf", None).await;
        assert!(
            matches!(&gone, Err(SkillOpError::Vanished(n)) if n == "pdf"),
            "{gone:?}"
        );
    }
}
