//! The cron scheduler: a background worker of each server. Every poll it takes over ticks
//! whose claimant died before recording a run, then claims due crons (a tick row per due
//! time, unique, written with the next due time in one transaction) and starts their runs.
//! With several replicas each tick runs once; a replica killed after claiming loses no
//! tick. After downtime a cron that was due runs once, and its next date is computed from
//! now (see [`super::schedule::plan`]).

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;

use super::CronsService;
use super::schedule::plan;

/// An instance whose heartbeat is older than this is dead (as the run manager judges).
const DEAD_AFTER: chrono::TimeDelta = chrono::TimeDelta::seconds(10);
/// Finished ticks are kept this long (the unique key only matters around the due time).
const KEEP_TICKS: chrono::TimeDelta = chrono::TimeDelta::days(1);
/// How often old ticks are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(600);

impl CronsService {
    /// Starts the scheduler as `instance`; it stops when the task is aborted.
    pub(crate) fn start_scheduler(
        self: &Arc<Self>,
        instance: String,
    ) -> tokio::task::JoinHandle<()> {
        let this = Arc::clone(self);
        tokio::spawn(async move {
            // Ticks this instance id claimed before now belong to an earlier process of it.
            let restarted_at = Utc::now();
            // Seen alive before claiming anything, so no replica takes over our fresh claims.
            if let Err(error) = this.store.instances.heartbeat(&instance).await {
                tracing::warn!(%error, "cron scheduler: heartbeat failed");
            }
            let every = Duration::from_millis(this.config.poll_interval_ms.max(10));
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut last_prune = tokio::time::Instant::now();
            loop {
                tick.tick().await;
                this.poll(&instance, restarted_at).await;
                if last_prune.elapsed() >= PRUNE_EVERY {
                    last_prune = tokio::time::Instant::now();
                    match this.store.crons.prune_ticks(Utc::now() - KEEP_TICKS).await {
                        Ok(0) => {}
                        Ok(n) => tracing::debug!(pruned = n, "old cron ticks pruned"),
                        Err(error) => tracing::warn!(%error, "old cron ticks could not be pruned"),
                    }
                }
            }
        })
    }

    /// One round: orphaned ticks first, then every due cron (batch after batch).
    async fn poll(&self, instance: &str, restarted_at: chrono::DateTime<Utc>) {
        let batch = self.config.batch_size.max(1);
        match self
            .store
            .crons
            .take_over(instance, Utc::now() - DEAD_AFTER, restarted_at, batch)
            .await
        {
            Ok(ticks) => {
                for t in &ticks {
                    tracing::warn!(cron.id = %t.cron.cron_id, "cron tick taken over from a stopped replica");
                    self.run_tick(t, true).await;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cron scheduler: orphaned ticks could not be read")
            }
        }
        // A tick is missed (run once, not caught up) when seen this late: a few polls.
        let grace = chrono::TimeDelta::milliseconds(
            i64::try_from(self.config.poll_interval_ms.saturating_mul(5)).unwrap_or(i64::MAX),
        )
        .max(chrono::TimeDelta::seconds(5));
        let planner = move |cron: &antler_store::CronRecord, now| plan(cron, now, grace);
        loop {
            let claimed = match self
                .store
                .crons
                .claim_due(instance, Utc::now(), batch, &planner)
                .await
            {
                Ok(claimed) => claimed,
                Err(error) => {
                    tracing::warn!(%error, "cron scheduler: due crons could not be claimed");
                    return;
                }
            };
            for t in &claimed {
                self.run_tick(t, false).await;
            }
            // Again until nothing is due: a full batch left others, and a late tick's
            // successor may be due already. Each claim moves a cron's due time on, past
            // now at the latest once it is `grace` late, so this ends.
            if claimed.is_empty() {
                return;
            }
        }
    }
}
