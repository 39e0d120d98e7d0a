"""The LangGraph Python SDK's thread API beyond chat: threads.copy, get_history, count,
prune, runs with multitask_strategy="rollback", stream_mode="events", and the interrupts
of a thread waiting on a question. Needs ANTLER_BIN and MOCK_LLM_BIN, as
test_langgraph_sdk.py does."""

import asyncio
import textwrap
import unittest

from langgraph_sdk import get_client

from sdk_server import SdkServer

SCRIPT = textwrap.dedent("""
    scenarios:
      - system: "You write titles"
        turns: [{content: "Thread API"}]
      - match: "slow"
        turns:
          - content: "one two three four five six seven eight nine ten eleven twelve"
            chunk_size: 3
            chunk_delay_ms: 200
      - match: "tool"
        turns:
          - tool_calls: [{name: write_file, arguments: {path: /mnt/user-data/outputs/t.txt, content: "x"}}]
          - content: "wrote it"
      - match: "ask"
        turns:
          - tool_calls: [{name: ask_clarification, arguments: {question: "CSV or JSON?", clarification_type: approach_choice, options: [CSV, JSON]}}]
      - match: ""
        turns: [{content: "quick answer"}]
""")


def texts(values):
    return [m["content"] for m in values.get("messages", [])]


class ThreadApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.antler = SdkServer("threads-admin@antler.test", SCRIPT)
        cls.base = cls.antler.base
        cls.token = cls.antler.token("threads-admin@antler.test")

    @classmethod
    def tearDownClass(cls):
        cls.antler.close()

    def client(self):
        return get_client(url=f"{self.base}/api", api_key=self.token)

    def run_scenario(self, scenario):
        return asyncio.run(scenario(self.client()))

    def test_copy_keeps_values_and_history(self):
        async def scenario(client):
            thread = await client.threads.create(metadata={"k": "v"})
            tid = thread["thread_id"]
            await client.runs.wait(tid, "lead_agent", input={"messages": [{"role": "user", "content": "hello"}]})
            copy = await client.threads.copy(tid)
            source = await client.threads.get(tid)
            history = await client.threads.get_history(tid, limit=100)
            copied = await client.threads.get_history(copy["thread_id"], limit=100)
            page = await client.threads.get_history(tid, limit=1, before=history[0]["checkpoint"])
            return source, copy, history, copied, page

        source, copy, history, copied, page = self.run_scenario(scenario)
        self.assertNotEqual(copy["thread_id"], source["thread_id"])
        self.assertEqual(copy["values"], source["values"])
        self.assertEqual(copy["metadata"]["k"], "v")
        self.assertEqual(copy["interrupts"], {})
        self.assertEqual([s["values"] for s in copied], [s["values"] for s in history])
        self.assertEqual(page[0]["values"], history[1]["values"])

    def test_rollback_leaves_no_trace_of_the_cancelled_run(self):
        async def scenario(client):
            thread = await client.threads.create()
            tid = thread["thread_id"]
            await client.runs.wait(tid, "lead_agent", input={"messages": [{"role": "user", "content": "first"}]})
            slow = await client.runs.create(tid, "lead_agent", input={"messages": [{"role": "user", "content": "slow please"}]})
            for _ in range(200):
                state = await client.threads.get_state(tid)
                if "slow please" in texts(state["values"]):
                    break
                await asyncio.sleep(0.05)
            values = await client.runs.wait(
                tid, "lead_agent",
                input={"messages": [{"role": "user", "content": "instead"}]},
                multitask_strategy="rollback",
            )
            runs = await client.runs.list(tid)
            return slow, values, runs

        slow, values, runs = self.run_scenario(scenario)
        self.assertEqual(texts(values), ["first", "quick answer", "instead", "quick answer"])
        self.assertNotIn(slow["run_id"], [r["run_id"] for r in runs])

    def test_stream_mode_events(self):
        async def scenario(client):
            thread = await client.threads.create()
            return [
                part async for part in client.runs.stream(
                    thread["thread_id"], "lead_agent",
                    input={"messages": [{"role": "user", "content": "use a tool"}]},
                    stream_mode="events",
                )
            ]

        parts = self.run_scenario(scenario)
        events = [p.data for p in parts if p.event == "events"]
        kinds = [(e["event"], e["name"]) for e in events]
        self.assertEqual(kinds[0], ("on_chain_start", "LangGraph"))
        self.assertEqual(kinds[-1], ("on_chain_end", "LangGraph"))
        self.assertIn(("on_tool_start", "write_file"), kinds)
        self.assertIn(("on_tool_end", "write_file"), kinds)
        chunks = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
        self.assertEqual("".join(c["content"] for c in chunks), "wrote it")
        self.assertEqual(parts[-1].event, "end")

    def test_interrupts_on_a_thread_waiting_for_an_answer(self):
        async def scenario(client):
            thread = await client.threads.create()
            tid = thread["thread_id"]
            await client.runs.wait(tid, "lead_agent", input={"messages": [{"role": "user", "content": "ask me"}]})
            return await client.threads.get(tid), await client.threads.get_state(tid)

        thread, state = self.run_scenario(scenario)
        self.assertEqual(thread["status"], "interrupted")
        task = state["tasks"][0]
        self.assertEqual(thread["interrupts"], {task["id"]: task["interrupts"]})
        self.assertEqual(thread["interrupts"][task["id"]][0]["value"]["question"], "CSV or JSON?")

    def test_count_and_prune(self):
        async def scenario(client):
            a = await client.threads.create(metadata={"group": "prune-test"})
            b = await client.threads.create(metadata={"group": "prune-test"})
            before = await client.threads.count(metadata={"group": "prune-test"})
            pruned = await client.threads.prune([a["thread_id"], b["thread_id"]])
            after = await client.threads.count(metadata={"group": "prune-test"})
            return before, pruned, after

        before, pruned, after = self.run_scenario(scenario)
        self.assertEqual((before, pruned, after), (2, {"pruned_count": 2}, 0))


if __name__ == "__main__":
    unittest.main()
