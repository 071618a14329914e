"""The MCP Tasks handles in the ledger (store/ledger/task_handles.py), on both engines: a handle
written is read back by another process's ledger (a restarted `svc mcp`), its changing part
moves and its fixed part stays, and a ledger of schema 7 gains the table on open."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from tests.ledger_worker import open_where
from tests.pg_cluster import Cluster

from svc.store.ledger.sqlite import SCHEMA_VERSION
from svc.store.ledger.task_handles import TaskHandle


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite3")
    cluster: Cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database("svc_" + os.urandom(6).hex())


def handle(task_id: str = "h_1") -> TaskHandle:
    return TaskHandle(
        task_id=task_id,
        service_task_id="task_1",
        request_id="req_1",
        tool="submit_task",
        base_url="http://127.0.0.1:1",
        status="working",
    )


def test_a_handle_written_is_read_by_another_ledger_and_moves_on(where: str) -> None:
    first = open_where(where, "runner-a")
    try:
        made = first.task_handles().create(handle())
        assert made.created_at == made.updated_at > 0
    finally:
        first.close()
    second = open_where(where, "runner-b")  # as a restarted `svc mcp` opens it
    try:
        handles = second.task_handles()
        assert handles.get("h_1") == made
        assert handles.get("h_2") is None
        asked = replace(made, status="input_required", input_key="ask-1", input_ask="e1", asked=1)
        saved = handles.save(asked)
        assert saved.updated_at >= made.updated_at
        assert handles.get("h_1") == saved
        done = handles.save(replace(saved, status="completed", input_key=None, result="{}"))
        read = handles.get("h_1")
        assert read is not None and (read.status, read.input_key, read.asked) == (
            "completed",
            None,
            1,
        )
        assert (read.service_task_id, read.request_id, read.created_at) == (
            "task_1",
            "req_1",
            made.created_at,
        )
        assert done == read
        assert handles.forget("h_1") and handles.get("h_1") is None
    finally:
        second.close()


def test_a_ledger_of_schema_7_gains_the_handles_table_on_open(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_where(where, "runner-a").close()
    if where.startswith("postgresql"):
        import psycopg

        from svc.store.ledger import postgres

        with psycopg.connect(where, autocommit=True) as conn:
            conn.execute("DROP TABLE mcp_tasks")
            conn.execute("UPDATE svc_schema SET version = 7")
        monkeypatch.setattr(postgres, "_CURRENT", set())  # checked again, as a new process
    else:
        with sqlite3.connect(where) as db:
            db.execute("DROP TABLE mcp_tasks")
            db.execute("PRAGMA user_version = 7")
    store = open_where(where, "runner-new")
    try:
        assert store.describe().schema_version == SCHEMA_VERSION == 8
        store.task_handles().create(handle("h_old"))
        assert store.task_handles().get("h_old") is not None
    finally:
        store.close()
