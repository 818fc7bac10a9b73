"""Every test, and every cooptest process a test starts, keeps parsed ASTs in a cache of
the test session's own (``COOPTEST_CACHE``), never in the user's."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def private_ast_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["COOPTEST_CACHE"] = str(tmp_path_factory.mktemp("ast-cache"))
