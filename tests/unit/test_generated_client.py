"""The library's second copies are generated, never written by hand: `client/_generated.py` is
what tools/gen_client.py writes from the operations' table and `client/_sync.py`, and
`AsyncClient`'s hand-written iterators take exactly the arguments of their `Client` twins."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from tools import gen_faces as gen_client

from svc.client._async import AsyncClient
from svc.client._generated_async import AsyncIdentity
from svc.client._sync import Client, Identity
from svc.operations import table
from svc.operations.declare import Method

ASYNC = Path(gen_client.ROOT) / "src/svc/client/_async.py"


def test_the_generated_files_are_fresh() -> None:
    sync, awaited = gen_client.generated()
    index = gen_client.command_index()
    generated = ((gen_client.TARGET, sync), (gen_client.ASYNC_TARGET, awaited))
    page = gen_client.page_with_matrix(gen_client.PAGE.read_text(encoding="utf-8"))
    package = gen_client.package_with_results(gen_client.PACKAGE.read_text(encoding="utf-8"))
    written = ((gen_client.INDEX_TARGET, index), (gen_client.PAGE, page))
    for target, text in (*generated, *written, (gen_client.PACKAGE, package)):
        assert target.read_text(encoding="utf-8") == text, f"{target.name} is stale: make docs"


def test_every_served_result_is_public_from_its_operations_module() -> None:
    import svc

    for operation in table.OPERATIONS:
        if isinstance(operation.library, Method) and operation.result is not None:
            name = operation.result.__name__
            assert name in svc.__all__
            assert getattr(svc, name) is operation.result


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


def _without_return(signature: inspect.Signature) -> list[inspect.Parameter]:
    return list(signature.parameters.values())


def test_every_client_method_has_an_async_twin_with_the_same_arguments() -> None:
    for sync, twin in ((Client, AsyncClient), (Identity, AsyncIdentity)):
        synced, awaited = _public(sync), _public(twin)
        assert set(synced) - {"close"} == set(awaited) - {"aclose"}, sync.__name__
        for name, signature in synced.items():
            if name != "close":
                assert _without_return(signature) == _without_return(awaited[name]), name


def test_the_async_client_takes_the_clients_arguments() -> None:
    synced = _without_return(inspect.signature(Client.__init__))
    awaited = _without_return(inspect.signature(AsyncClient.__init__))
    assert [p for p in awaited if p.name != "max_workers"] == synced


def test_every_async_coroutine_says_what_its_sync_twin_says() -> None:
    for name, method in _public(Client).items():
        if name in gen_client.ITERATORS or name in ("close", "with_options"):
            continue
        sync_doc = inspect.getdoc(getattr(Client, name))
        assert sync_doc and sync_doc in (inspect.getdoc(getattr(AsyncClient, name)) or ""), name


def test_async_py_defines_only_the_iterators_and_its_life() -> None:
    tree = ast.parse(ASYNC.read_text(encoding="utf-8"))
    client = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AsyncClient")
    defined = {
        node.name
        for node in client.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not node.name.startswith("_")
    }
    assert defined == set(gen_client.ITERATORS) | {"aclose", "with_options"}


def test_every_declared_library_method_is_on_both_clients() -> None:
    for operation in table.OPERATIONS:
        face = operation.library
        if isinstance(face, Method):
            assert inspect.getdoc(getattr(Client, face.name)) == inspect.cleandoc(
                gen_client.textwrap.fill(face.doc, 88, subsequent_indent="        ")
            )
            assert inspect.iscoroutinefunction(getattr(AsyncClient, face.name))
