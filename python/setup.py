# The compiled part (cffi_modules) and the version, both taken from the
# library's header at build time (build_ffi.py).
import re
import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_ffi  # noqa: E402

with open(build_ffi.HEADER, encoding="utf-8") as f:
    parts = dict(re.findall(r"#define SW_VERSION_(MAJOR|MINOR|PATCH) (\d+)", f.read()))

setup(
    version="{MAJOR}.{MINOR}.{PATCH}".format(**parts),
    cffi_modules=["build_ffi.py:ffibuilder"],
)
