"""Crons through the official LangGraph Python SDK (langgraph-sdk from PyPI), unmodified:
create (new thread per run, and for a thread), search, count, update, delete, and a
per-second cron actually starting runs through the scripted model."""

import asyncio
import time
import unittest

from langgraph_sdk import get_client

from sdk_server import SdkServer

SCRIPT = 'scenarios:\n  - match: ""\n    turns:\n      - content: "cron says hi"\n'


class CronsSdkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.antler = SdkServer("crons-admin@antler.test", SCRIPT, env={
            "ANTLER_AGENT_GENERATE_TITLES": "false",
            "ANTLER_CRONS_POLL_INTERVAL_MS": "100",
        })
        cls.base = cls.antler.base
        cls.token = cls.antler.token("crons-admin@antler.test")

    @classmethod
    def tearDownClass(cls):
        cls.antler.close()

    def client(self):
        return get_client(url=f"{self.base}/api", api_key=self.token)

    def test_crons_create_search_count_update_delete(self):
        async def scenario():
            client = self.client()
            daily = await client.crons.create(
                "agent", schedule="0 9 * * 1-5", timezone="Europe/Paris",
                input={"messages": [{"role": "user", "content": "news"}]},
                metadata={"team": "news"}, enabled=False,
            )
            thread = await client.threads.create()
            on_thread = await client.crons.create_for_thread(
                thread["thread_id"], "agent", schedule="30 6 1 1 *",
                input={"messages": [{"role": "user", "content": "new year"}]},
            )
            found = await client.crons.search(metadata={"team": "news"})
            by_thread = await client.crons.search(thread_id=thread["thread_id"], select=["cron_id", "schedule"])
            count = await client.crons.count(assistant_id="agent")
            updated = await client.crons.update(daily["cron_id"], enabled=True, schedule="0 10 * * *")
            await client.crons.delete(on_thread["cron_id"])
            after = await client.crons.count()
            return daily, on_thread, found, by_thread, count, updated, after

        daily, on_thread, found, by_thread, count, updated, after = asyncio.run(scenario())
        self.assertIsNone(daily["thread_id"])
        self.assertIsNone(daily["next_run_date"])
        self.assertEqual(daily["on_run_completed"], "delete")
        self.assertEqual(on_thread["schedule"], "30 6 1 1 *")
        self.assertTrue(on_thread["next_run_date"])
        self.assertEqual([c["cron_id"] for c in found], [daily["cron_id"]])
        self.assertEqual(by_thread, [{"cron_id": on_thread["cron_id"], "schedule": "30 6 1 1 *"}])
        self.assertGreaterEqual(count, 2)
        self.assertTrue(updated["enabled"])
        self.assertEqual(updated["schedule"], "0 10 * * *")
        self.assertTrue(updated["next_run_date"])
        self.assertEqual(after, count - 1)

    def test_a_per_second_cron_starts_runs_the_sdk_can_read(self):
        async def scenario():
            client = self.client()
            cron = await client.crons.create(
                "agent", schedule="* * * * * *", on_run_completed="keep",
                input={"messages": [{"role": "user", "content": "tick"}]},
            )
            deadline = time.monotonic() + 60
            threads = []
            while time.monotonic() < deadline:
                threads = await client.threads.search(metadata={"cron_id": cron["cron_id"]})
                if threads:
                    runs = await client.runs.list(threads[0]["thread_id"])
                    if runs and runs[0]["status"] == "success":
                        break
                await asyncio.sleep(0.1)
            await client.crons.update(cron["cron_id"], enabled=False)
            state = await client.threads.get_state(threads[0]["thread_id"])
            return runs, state

        runs, state = asyncio.run(scenario())
        self.assertEqual(runs[0]["status"], "success")
        self.assertIn("cron_id", runs[0]["metadata"])
        self.assertEqual(state["values"]["messages"][-1]["content"], "cron says hi")


if __name__ == "__main__":
    unittest.main()
