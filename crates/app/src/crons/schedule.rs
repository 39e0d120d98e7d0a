//! Reading a cron's schedule: the expression (5 fields, or 6 with leading seconds) in an
//! IANA time zone, with daylight-saving changes handled by the time zone database.

use chrono::{DateTime, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

use antler_store::{CronPlan, CronRecord};

/// A parsed schedule in its time zone.
#[derive(Debug, Clone)]
pub struct Schedule {
    cron: Cron,
    tz: Tz,
}

impl Schedule {
    /// Parses `expression` read in `timezone` (UTC when `None`); the error names the field.
    pub fn parse(expression: &str, timezone: Option<&str>) -> Result<Schedule, String> {
        let fields = expression.split_whitespace().count();
        if !(5..=6).contains(&fields) && !expression.trim_start().starts_with('@') {
            return Err(format!(
                "schedule: '{}' has {fields} fields; expected 5 (minute hour day month weekday) or 6 (with leading seconds)",
                shown(expression)
            ));
        }
        let cron = CronParser::builder()
            .seconds(Seconds::Optional)
            .year(Year::Disallowed)
            .build()
            .parse(expression)
            .map_err(|e| {
                format!(
                    "schedule: '{}' is not a cron expression ({e})",
                    shown(expression)
                )
            })?;
        let tz = match timezone {
            None => Tz::UTC,
            Some(name) => name.parse::<Tz>().map_err(|_| {
                format!(
                    "timezone: '{}' is not an IANA time zone name (such as Europe/Paris or UTC)",
                    shown(name)
                )
            })?,
        };
        let schedule = Schedule { cron, tz };
        if schedule.next_after(Utc::now()).is_none() {
            return Err(format!(
                "schedule: '{}' never matches a date",
                shown(expression)
            ));
        }
        Ok(schedule)
    }

    /// The first time strictly after `t` the schedule matches.
    pub fn next_after(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = t.with_timezone(&self.tz);
        self.cron
            .find_next_occurrence(&local, false)
            .ok()
            .map(|d| d.with_timezone(&Utc))
    }

    /// The first time after `t` it runs, before `end` (`None`: no more).
    pub fn next_before_end(
        &self,
        t: DateTime<Utc>,
        end: Option<DateTime<Utc>>,
    ) -> Option<DateTime<Utc>> {
        self.next_after(t)
            .filter(|next| end.is_none_or(|e| *next < e))
    }
}

/// What a due cron does at `now`. A tick seen within `grace` of its time is on time: the
/// next one follows it, so a slow poll never skips a tick of a frequent schedule. Ticks
/// missed for longer (the servers were down) run once: the tick that was due runs, and
/// the next one is computed from now, never one per missed time.
pub fn plan(cron: &CronRecord, now: DateTime<Utc>, grace: TimeDelta) -> CronPlan {
    let due = cron.next_run_date.unwrap_or(now);
    let run = cron.enabled && cron.end_time.is_none_or(|end| due < end);
    let from = if now - due > grace { now } else { due };
    let next = if cron.enabled {
        Schedule::parse(&cron.schedule, cron.timezone.as_deref())
            .ok()
            .and_then(|s| s.next_before_end(from, cron.end_time))
    } else {
        None
    };
    CronPlan { run, next }
}

/// Reads an `end_time`: RFC 3339, or an ISO date-time without offset read as UTC (what
/// Python's `datetime.isoformat()` gives for a naive time).
pub fn parse_time(field: &str, text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(t.and_utc());
        }
    }
    Err(format!(
        "{field}: '{}' is not an RFC 3339 time such as 2030-01-01T09:00:00Z",
        shown(text)
    ))
}

/// At most 80 characters of client text, for a message.
fn shown(text: &str) -> String {
    text.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        parse_time("t", text).unwrap_or_default()
    }

    #[test]
    fn five_and_six_field_schedules_find_their_next_time() {
        let five = Schedule::parse("0 9 * * 1-5", None);
        let next = five.map(|s| s.next_after(at("2030-01-05T10:00:00Z")));
        // 2030-01-05 is a Saturday: the next weekday 09:00 is Monday the 7th.
        assert_eq!(next, Ok(Some(at("2030-01-07T09:00:00Z"))));
        let six = Schedule::parse("*/10 * * * * *", None);
        let next = six.map(|s| s.next_after(at("2030-01-05T10:00:03Z")));
        assert_eq!(next, Ok(Some(at("2030-01-05T10:00:10Z"))));
    }

    #[test]
    fn a_time_zone_moves_the_schedule_across_daylight_saving() {
        let paris = Schedule::parse("0 9 * * *", Some("Europe/Paris"));
        let winter = paris
            .clone()
            .map(|s| s.next_after(at("2030-01-10T00:00:00Z")));
        assert_eq!(winter, Ok(Some(at("2030-01-10T08:00:00Z"))));
        let summer = paris.map(|s| s.next_after(at("2030-07-10T00:00:00Z")));
        assert_eq!(summer, Ok(Some(at("2030-07-10T07:00:00Z"))));
    }

    #[test]
    fn bad_schedules_and_time_zones_name_their_field() {
        let bad = Schedule::parse("every day", None).err().unwrap_or_default();
        assert!(bad.starts_with("schedule:"), "{bad}");
        let bad = Schedule::parse("61 * * * *", None)
            .err()
            .unwrap_or_default();
        assert!(bad.starts_with("schedule:"), "{bad}");
        let bad = Schedule::parse("0 9 * * *", Some("Mars/Olympus"))
            .err()
            .unwrap_or_default();
        assert!(bad.starts_with("timezone:"), "{bad}");
        let bad = parse_time("end_time", "tomorrow").err().unwrap_or_default();
        assert!(bad.starts_with("end_time:"), "{bad}");
    }

    #[test]
    fn a_missed_tick_runs_once_and_the_next_is_computed_from_now() {
        let now = at("2030-01-10T12:00:00Z");
        let cron = CronRecord {
            cron_id: "c".into(),
            owner: "o".into(),
            assistant_id: "agent".into(),
            thread_id: None,
            schedule: "0 * * * *".into(),
            timezone: None,
            end_time: None,
            on_run_completed: None,
            payload: serde_json::Value::Null,
            metadata: serde_json::Map::new(),
            enabled: true,
            next_run_date: Some(at("2030-01-09T03:00:00Z")),
            last_run: None,
            created_at: now,
            updated_at: now,
        };
        let grace = TimeDelta::seconds(5);
        let p = plan(&cron, now, grace);
        assert!(p.run);
        assert_eq!(p.next, Some(at("2030-01-10T13:00:00Z")));
        // A tick seen a little late is followed by the next one, already due: none is lost.
        let every_second = CronRecord {
            schedule: "* * * * * *".into(),
            next_run_date: Some(at("2030-01-10T11:59:58Z")),
            ..cron.clone()
        };
        let p = plan(&every_second, now, grace);
        assert!(p.run);
        assert_eq!(p.next, Some(at("2030-01-10T11:59:59Z")));
        let ended = CronRecord {
            end_time: Some(at("2030-01-09T02:00:00Z")),
            ..cron
        };
        assert_eq!(
            plan(&ended, now, grace),
            CronPlan {
                run: false,
                next: None
            }
        );
    }
}
