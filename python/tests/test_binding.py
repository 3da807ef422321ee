# The binding is generated from include/swsearch.h: every function the
# header exports is reachable.
import os
import re
from pathlib import Path

import pytest

from swsearch._swsearch import lib


def test_every_sw_api_function_is_bound():
    inc = os.environ.get("SWSEARCH_INCLUDE_DIR")
    header = Path(inc) / "swsearch.h" if inc else Path(__file__).resolve().parents[2] / "include" / "swsearch.h"
    if not header.is_file():
        pytest.skip("swsearch.h not found (SWSEARCH_INCLUDE_DIR)")
    names = re.findall(r"SW_API\s[^;(]*?\b(sw_\w+)\s*\(", header.read_text())
    assert len(names) > 30
    assert [n for n in names if not hasattr(lib, n)] == []
