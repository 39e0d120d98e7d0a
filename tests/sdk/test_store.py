"""LangGraph's long-term store through the official Python SDK (`client.store`), unmodified,
against a real Antler server: put, get, search (filters, ranking), namespaces, delete, and
one person's items invisible to another. Needs ANTLER_BIN (see test_langgraph_sdk.py)."""

import asyncio
import unittest

from langgraph_sdk import get_client

from sdk_server import SdkServer


class StoreSdkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.antler = SdkServer("store-admin@antler.test")
        cls.base = cls.antler.base
        cls.antler.create_user("store-user@antler.test")
        cls.admin_token = cls.antler.token("store-admin@antler.test")
        cls.user_token = cls.antler.token("store-user@antler.test")

    @classmethod
    def tearDownClass(cls):
        cls.antler.close()

    def client(self, token):
        return get_client(url=f"{self.base}/api", api_key=token)

    def test_items_are_put_read_searched_listed_and_deleted(self):
        async def scenario():
            store = self.client(self.admin_token).store
            await store.put_item(["sdk", "notes"], "n1", {"text": "rust ownership rust", "score": 5})
            await store.put_item(["sdk", "notes"], "n2", {"text": "rust once among other words", "score": 1})
            await store.put_item(["sdk", "prefs"], "p1", {"theme": "dark"}, index=False, ttl=60)
            item = await store.get_item(["sdk", "notes"], key="n1")
            missing = await store.get_item(["sdk", "notes"], key="nope")
            ranked = await store.search_items(["sdk"], query="rust ownership")
            filtered = await store.search_items(["sdk"], filter={"score": {"$gt": 2}})
            spaces = await store.list_namespaces(prefix=["sdk"], max_depth=2)
            await store.delete_item(["sdk", "notes"], key="n1")
            gone = await store.get_item(["sdk", "notes"], key="n1")
            return item, missing, ranked, filtered, spaces, gone

        item, missing, ranked, filtered, spaces, gone = asyncio.run(scenario())
        self.assertEqual(item["namespace"], ["sdk", "notes"])
        self.assertEqual(item["value"], {"text": "rust ownership rust", "score": 5})
        self.assertIn("created_at", item)
        self.assertIsNone(missing, "a missing item is None")
        self.assertEqual([i["key"] for i in ranked["items"]], ["n1", "n2"])
        self.assertGreater(ranked["items"][0]["score"], ranked["items"][1]["score"])
        self.assertEqual([i["key"] for i in filtered["items"]], ["n1"])
        self.assertIsNone(filtered["items"][0]["score"])
        self.assertEqual(spaces["namespaces"], [["sdk", "notes"], ["sdk", "prefs"]])
        self.assertIsNone(gone)

    def test_another_person_sees_none_of_it(self):
        async def scenario():
            mine = self.client(self.admin_token).store
            theirs = self.client(self.user_token).store
            await mine.put_item(["private"], "k", {"secret": "plans"})
            seen = await theirs.get_item(["private"], key="k")
            found = await theirs.search_items([])
            spaces = await theirs.list_namespaces()
            await theirs.delete_item(["private"], key="k")
            still = await mine.get_item(["private"], key="k")
            return seen, found, spaces, still

        seen, found, spaces, still = asyncio.run(scenario())
        self.assertIsNone(seen)
        self.assertEqual(found["items"], [])
        self.assertEqual(spaces["namespaces"], [])
        self.assertEqual(still["value"], {"secret": "plans"})

    def test_an_unknown_filter_operator_is_a_422(self):
        async def scenario():
            store = self.client(self.admin_token).store
            await store.search_items(["sdk"], filter={"score": {"$regex": "x"}})

        with self.assertRaises(Exception) as raised:
            asyncio.run(scenario())
        self.assertEqual(getattr(raised.exception, "response").status_code, 422)


if __name__ == "__main__":
    unittest.main()
