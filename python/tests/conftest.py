# Fixtures shared by the tests: the test data of the C library
# (tests/data, or SWSEARCH_TEST_DATA), a database made of its Swiss-Prot-like
# sample, and the program (SWSEARCH_BIN) whose output the hits must match.
import os
from pathlib import Path

import pytest

import swsearch


@pytest.fixture(scope="session")
def data_dir():
    d = os.environ.get("SWSEARCH_TEST_DATA")
    return Path(d) if d else Path(__file__).resolve().parents[2] / "tests" / "data"


@pytest.fixture(scope="session")
def queries_path(data_dir):
    return data_dir / "queries20.fasta"


@pytest.fixture(scope="session")
def queries(queries_path):
    """The (header, sequence) pairs of queries20.fasta."""
    records = []
    for line in queries_path.read_text().splitlines():
        if line.startswith(">"):
            records.append([line[1:], ""])
        elif line.strip():
            records[-1][1] += line.strip()
    return [tuple(r) for r in records]


@pytest.fixture(scope="session")
def db_path(tmp_path_factory, data_dir):
    path = tmp_path_factory.mktemp("db") / "sprot"
    swsearch.makedb(data_dir / "swissprot_like_2500.fa.zst", path)
    return path


@pytest.fixture(scope="session")
def db(db_path):
    with swsearch.Database(db_path) as d:
        yield d


@pytest.fixture(scope="session")
def swsearch_bin():
    path = os.environ.get("SWSEARCH_BIN")
    if not path:
        pytest.skip("SWSEARCH_BIN (the swsearch program) is not set")
    return path
