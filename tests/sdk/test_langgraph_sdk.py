"""The official LangGraph Python SDK (langgraph-sdk from PyPI) against a real Antler server
and the scripted mock model, unmodified. Run by `make test` inside a virtualenv it creates;
needs ANTLER_BIN and MOCK_LLM_BIN (paths of the built binaries)."""

import asyncio
import json
import textwrap
import unittest
import urllib.request

from langgraph_sdk import get_client

from sdk_server import SdkServer

SCRIPT = textwrap.dedent("""
    options: {chunk_size: 5}
    scenarios:
      - system: "You write titles"
        turns: [{content: "SDK chat"}]
      - match: "export the report"
        turns:
          - tool_calls: [{name: ask_clarification, arguments: {question: "Which format?", clarification_type: approach_choice, options: [CSV, JSON]}}]
      - match: "JSON please"
        turns: [{content: "Exporting as JSON."}]
      - match: "slow"
        turns:
          - content: "a slow answer that takes a little while to stream"
            chunk_size: 3
            chunk_delay_ms: 60
      - match: ""
        turns:
          - tool_calls: [{name: write_file, arguments: {path: /mnt/user-data/outputs/sdk.txt, content: "from the sdk"}}]
          - content: "Hello from Antler."
            usage: {prompt_tokens: 12, completion_tokens: 4}
""")


class LangGraphSdkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.antler = SdkServer("sdk-admin@antler.test", SCRIPT, model_settings=", supports_vision: true")
        cls.base, cls.mock_url = cls.antler.base, cls.antler.mock_url
        cls.token = cls.antler.token("sdk-admin@antler.test")

    @classmethod
    def tearDownClass(cls):
        cls.antler.close()

    def client(self):
        return get_client(url=f"{self.base}/api", api_key=self.token)

    def test_threads_create_and_runs_stream(self):
        async def scenario():
            client = self.client()
            thread = await client.threads.create(metadata={"source": "sdk"})
            self.assertEqual(thread["status"], "idle")
            parts = []
            async for part in client.runs.stream(
                thread["thread_id"],
                "lead_agent",
                input={"messages": [{"role": "user", "content": "hello sdk"}]},
                stream_mode=["values", "messages-tuple", "custom"],
            ):
                parts.append(part)
            return thread, parts

        thread, parts = asyncio.run(scenario())
        events = [p.event for p in parts]
        self.assertEqual(events[0], "metadata")
        self.assertIn("run_id", parts[0].data)
        self.assertEqual(events[-1], "end")
        self.assertIn("values", events)
        self.assertIn("messages", events)
        chunks = [p.data for p in parts if p.event == "messages"]
        chunk, meta = chunks[0]
        self.assertEqual(meta["thread_id"], thread["thread_id"])
        text = "".join(c["content"] for c, _ in chunks if c["type"] == "AIMessageChunk")
        self.assertEqual(text, "Hello from Antler.")
        tool = [c for c, _ in chunks if c["type"] == "tool"]
        self.assertEqual(tool[0]["name"], "write_file")
        final = [p.data for p in parts if p.event == "values"][-1]
        kinds = [m["type"] for m in final["messages"]]
        self.assertEqual(kinds, ["human", "ai", "tool", "ai"])
        self.assertEqual(final["title"], "SDK chat")
        titles = [p.data for p in parts if p.event == "custom" and p.data.get("type") == "title"]
        self.assertEqual(titles[0]["title"], "SDK chat")

    def test_runs_join_stream_and_state(self):
        async def scenario():
            client = self.client()
            thread = await client.threads.create()
            run = await client.runs.create(
                thread["thread_id"],
                "lead_agent",
                input={"messages": [{"role": "user", "content": "slow please"}]},
                stream_mode=["values", "messages-tuple"],
            )
            joined = []
            async for part in client.runs.join_stream(thread["thread_id"], run["run_id"]):
                joined.append(part)
            state = await client.threads.get_state(thread["thread_id"])
            got = await client.runs.get(thread["thread_id"], run["run_id"])
            history = await client.threads.get_history(thread["thread_id"])
            return run, joined, state, got, history

        run, joined, state, got, history = asyncio.run(scenario())
        self.assertEqual(run["status"], "pending")
        events = [p.event for p in joined]
        self.assertEqual(events[-1], "end")
        self.assertIn("messages", events)
        self.assertEqual(got["status"], "success")
        self.assertEqual(
            state["values"]["messages"][-1]["content"],
            "a slow answer that takes a little while to stream",
        )
        self.assertGreaterEqual(len(history), 2)

    def test_stateless_runs_and_deleting_a_run(self):
        async def scenario():
            client = self.client()
            before = await client.threads.search(limit=100)
            # Thread id None: a stateless run on a temporary thread, deleted afterwards.
            values = await client.runs.wait(
                None, "lead_agent", input={"messages": [{"role": "user", "content": "slow please"}]}
            )
            streamed = [
                part.event
                async for part in client.runs.stream(
                    None, "lead_agent", input={"messages": [{"role": "user", "content": "slow please"}]}
                )
            ]
            for _ in range(200):
                after = await client.threads.search(limit=100)
                if len(after) == len(before):
                    break
                await asyncio.sleep(0.05)
            thread = await client.threads.create()
            run = await client.runs.create(
                thread["thread_id"], "lead_agent", input={"messages": [{"role": "user", "content": "slow please"}]}
            )
            await client.runs.join(thread["thread_id"], run["run_id"])
            await client.runs.delete(thread["thread_id"], run["run_id"])
            left = await client.runs.list(thread["thread_id"])
            return before, values, streamed, after, left

        before, values, streamed, after, left = asyncio.run(scenario())
        self.assertEqual(values["messages"][-1]["content"], "a slow answer that takes a little while to stream")
        self.assertEqual(streamed[0], "metadata")
        self.assertEqual(streamed[-1], "end")
        self.assertEqual(len(after), len(before), "the temporary threads were deleted")
        self.assertEqual(left, [])


    def test_a_question_is_an_interrupt_resumed_with_a_command(self):
        async def scenario():
            client = self.client()
            thread = await client.threads.create()
            tid = thread["thread_id"]
            asked = await client.runs.wait(
                tid, "lead_agent", input={"messages": [{"role": "user", "content": "export the report"}]}
            )
            state = await client.threads.get_state(tid)
            parts = [
                part
                async for part in client.runs.stream(
                    tid, "lead_agent", command={"resume": "JSON please"}, stream_mode="values"
                )
            ]
            after = await client.threads.get_state(tid)
            return asked, state, parts, after

        asked, state, parts, after = asyncio.run(scenario())
        self.assertEqual(asked["__interrupt__"][0]["value"]["question"], "Which format?")
        self.assertEqual(state["next"], ["agent"])
        self.assertEqual(state["tasks"][0]["interrupts"][0]["value"]["options"], ["CSV", "JSON"])
        final = [p.data for p in parts if p.event == "values"][-1]
        self.assertEqual(final["messages"][-1]["content"], "Exporting as JSON.")
        self.assertNotIn("__interrupt__", final)
        self.assertEqual(after["next"], [])

    def test_branches_from_a_checkpoint_and_update_state(self):
        async def scenario():
            client = self.client()
            tid = (await client.threads.create())["thread_id"]
            await client.runs.wait(tid, "agent", input={"messages": [{"role": "user", "content": "slow one"}]})
            history = await client.threads.get_history(tid, limit=100)
            first_input = history[-1]
            asked = next(s for s in reversed(history) if [m["type"] for m in s["values"]["messages"]] == ["human"])
            # Edit: the question again from its input checkpoint; Regenerate: no input.
            edited = await client.runs.wait(
                tid, "agent", input={"messages": [{"role": "user", "content": "slow two"}]},
                checkpoint=first_input["checkpoint"],
            )
            regenerated = await client.runs.wait(tid, "agent", input=None, checkpoint_id=asked["checkpoint"]["checkpoint_id"])
            at = await client.threads.get_state(tid, checkpoint_id=asked["checkpoint"]["checkpoint_id"])
            updated = await client.threads.update_state(
                tid, {"messages": [{"type": "human", "content": "a note"}]}, as_node="agent"
            )
            state = await client.threads.get_state(tid)
            tree = await client.threads.get_history(tid, limit=100)
            return first_input, asked, edited, regenerated, at, updated, state, tree

        first_input, asked, edited, regenerated, at, updated, state, tree = asyncio.run(scenario())
        self.assertEqual(first_input["metadata"]["source"], "input")
        self.assertEqual(first_input["metadata"]["step"], -1)
        self.assertEqual([m["content"] for m in edited["messages"] if m["type"] == "human"], ["slow two"])
        self.assertEqual([m["type"] for m in regenerated["messages"]], ["human", "ai"])
        self.assertEqual(regenerated["messages"][0]["content"], "slow one")
        self.assertEqual(at["checkpoint"], asked["checkpoint"])
        self.assertEqual(state["checkpoint"]["checkpoint_id"], updated["checkpoint"]["checkpoint_id"])
        self.assertEqual(state["metadata"]["source"], "update")
        self.assertEqual(state["values"]["messages"][-1]["content"], "a note")
        parents = [s["parent_checkpoint"]["checkpoint_id"] for s in tree if s["parent_checkpoint"]]
        forks = {p for p in parents if parents.count(p) > 1}
        self.assertEqual(forks, {first_input["checkpoint"]["checkpoint_id"], asked["checkpoint"]["checkpoint_id"]})

    def test_assistants_are_custom_agents(self):
        async def scenario():
            client = self.client()
            built_in = await client.assistants.get("agent")
            created = await client.assistants.create(
                "agent",
                context={"system_prompt": "Answer like a pirate.", "tools": ["read_file", "ls"]},
                metadata={"team": "sdk"},
                name="Pirate",
                description="Talks like a pirate.",
            )
            aid = created["assistant_id"]
            found = await client.assistants.search(metadata={"team": "sdk"})
            updated = await client.assistants.update(aid, name="Captain")
            versions = await client.assistants.get_versions(aid)
            restored = await client.assistants.set_latest(aid, 1)
            schemas = await client.assistants.get_schemas(aid)
            graph = await client.assistants.get_graph(aid)
            thread = await client.threads.create()
            values = await client.runs.wait(
                thread["thread_id"], aid, input={"messages": [{"role": "user", "content": "slow ahoy"}]}
            )
            runs = await client.runs.list(thread["thread_id"])
            await client.assistants.delete(aid)
            with self.assertRaises(Exception) as gone:
                await client.assistants.get(aid)
            return built_in, created, found, updated, versions, restored, schemas, graph, values, runs, gone.exception

        built_in, created, found, updated, versions, restored, schemas, graph, values, runs, gone = asyncio.run(scenario())
        self.assertEqual(built_in["graph_id"], "agent")
        self.assertEqual(created["version"], 1)
        self.assertEqual([a["assistant_id"] for a in found], [created["assistant_id"]])
        self.assertEqual((updated["version"], updated["name"]), (2, "Captain"))
        self.assertEqual([v["version"] for v in versions], [2, 1])
        self.assertEqual(restored["name"], "Pirate")
        self.assertIn("read_file", schemas["context_schema"]["properties"]["tools"]["items"]["enum"])
        self.assertTrue(any(n["id"] == "tools" for n in graph["nodes"]))
        self.assertEqual(values["messages"][-1]["type"], "ai")
        self.assertEqual(runs[0]["assistant_id"], created["assistant_id"])
        self.assertEqual(getattr(getattr(gone, "response", None), "status_code", None), 404, repr(gone))

    def test_an_image_reaches_a_vision_model(self):
        png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

        async def scenario():
            client = self.client()
            thread = await client.threads.create()
            return await client.runs.wait(thread["thread_id"], "agent", input={"messages": [{"role": "user", "content": [
                {"type": "text", "text": "slow, what is this sdk picture?"},
                {"type": "image", "mimeType": "image/png", "data": png},
            ]}]})

        values = asyncio.run(scenario())
        self.assertEqual(values["messages"][0]["content"][1]["data"], png)
        with urllib.request.urlopen(f"{self.mock_url}/_requests") as r:
            requests = json.load(r)
        parts = [
            m["content"] for req in requests for m in req["messages"]
            # (a title request quotes the question as text)
            if m["role"] == "user" and isinstance(m["content"], list) and "sdk picture" in json.dumps(m["content"])
        ][-1]
        self.assertEqual(parts[1], {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}})

    def test_without_a_token_the_server_answers_401(self):
        async def scenario():
            client = get_client(url=f"{self.base}/api", api_key=None)
            with self.assertRaises(Exception) as caught:
                await client.threads.create()
            return caught.exception

        error = asyncio.run(scenario())
        self.assertEqual(getattr(getattr(error, "response", None), "status_code", None), 401, repr(error))


if __name__ == "__main__":
    unittest.main()
