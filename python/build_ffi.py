# The cffi builder of swsearch._swsearch: finds the library (the variables
# SWSEARCH_INCLUDE_DIR and SWSEARCH_LIBRARY_DIR, else pkg-config's
# swsearch.pc) and declares to cffi what include/swsearch.h declares, read
# from the header itself so that no second copy can drift from it.
import os
import re
import shlex
import subprocess

from cffi import FFI


def _pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "swsearch"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(out)


def find_library():
    """(include dirs, library dirs, libraries) of libswsearch."""
    inc, lib = os.environ.get("SWSEARCH_INCLUDE_DIR"), os.environ.get("SWSEARCH_LIBRARY_DIR")
    if inc or lib:
        if not (inc and lib):
            raise RuntimeError("set both SWSEARCH_INCLUDE_DIR and SWSEARCH_LIBRARY_DIR, or neither")
        return [inc], [lib], ["swsearch"]
    cflags, libs = _pkg_config("--cflags"), _pkg_config("--libs")
    if cflags is None or libs is None:
        raise RuntimeError(
            "libswsearch not found: install it (cmake --install build) where pkg-config finds swsearch.pc "
            "(PKG_CONFIG_PATH), or set SWSEARCH_INCLUDE_DIR and SWSEARCH_LIBRARY_DIR"
        )
    incs = [f[2:] for f in cflags if f.startswith("-I")]
    libdirs = [f[2:] for f in libs if f.startswith("-L")]
    names = [f[2:] for f in libs if f.startswith("-l")]
    return incs, libdirs, names


def header_path(include_dirs):
    for d in include_dirs + ["/usr/local/include", "/usr/include"]:
        p = os.path.join(d, "swsearch.h")
        if os.path.isfile(p):
            return p
    raise RuntimeError("swsearch.h not found in " + ", ".join(include_dirs))


def cdef_of_header(text):
    """The header's declarations as cffi reads them: without comments,
    includes, conditionals (the include guard, extern "C", SW_API's
    definition) and macros other than integer constants."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = text.replace("\\\n", " ")
    out, depth = [], 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            word = s[1:].split()[0] if s[1:].split() else ""
            if word in ("if", "ifdef", "ifndef"):
                depth += 1
            elif word == "endif":
                depth -= 1
            elif word == "define" and re.fullmatch(r"#\s*define\s+\w+\s+-?\d+", s):
                out.append(s)
            continue
        # Only the include guard's block is read: what other conditionals
        # hold (extern "C" {, SW_API's definitions) is not C for cffi.
        if depth == 1:
            out.append(line)
    cdef = re.sub(r"\bSW_API\b", "", "\n".join(out))
    return re.sub(r"\n\s*\n+", "\n", cdef)


include_dirs, library_dirs, libraries = find_library()
HEADER = header_path(include_dirs)
with open(HEADER, encoding="utf-8") as f:
    CDEF = cdef_of_header(f.read())

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
# Messages (skipped records, a fall back to the CPU) reach Python here.
ffibuilder.cdef('extern "Python" void swsearch_py_message(void *, const char *);')
ffibuilder.set_source(
    "swsearch._swsearch",
    "#include <swsearch.h>",
    include_dirs=include_dirs,
    library_dirs=library_dirs,
    libraries=libraries,
    # The module finds the library where it was built against, without
    # LD_LIBRARY_PATH (a build tree, or a prefix outside the loader's path).
    extra_link_args=["-Wl,-rpath," + os.path.abspath(d) for d in library_dirs],
)

if __name__ == "__main__":
    print(CDEF)
