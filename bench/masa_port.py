#!/usr/bin/env python3
"""Ports a copy of MASA-CUDAlign 3.9.1.1024 to CUDA 12/13, in place.

usage: python3 bench/masa_port.py SRC_DIR

SRC_DIR is the top of a MASA-CUDAlign 3.9.1.1024 tree (configure.ac, src/,
libs/masa-core/), e.g. from
  git -C MIRROR archive HEAD masa-cudalign-3.9.1.1024 | tar x --strip-components=1 -C SRC_DIR
It is only ever applied to a copy outside our tracked tree (.peers/masa); this
file holds the edits, not MASA's code. Running it twice is harmless.

What changes, and why:
 1. Texture references are gone since CUDA 12 (texture<...>, tex1Dfetch,
    cudaBindTexture, cudaUnbindTexture). The two DNA sequences become
    __constant__ device pointers plus lengths, set where the textures were
    bound (bind_textures) and read through __ldg; an index outside the bound
    range reads 0, as a fetch outside a linear texture did (sequence #0 is
    read up to a grid height past its padding). The horizontal bus was read
    through a texture bound to the same buffer the kernels get as `busH`: it
    is now read as __ldg(busH + j), the same read-only (non-coherent) cache
    path, and the per-launch bind/unbind calls go.
 2. cudaDeviceProp lost clockRate, deviceOverlap and kernelExecTimeoutEnabled
    in CUDA 13: they are queried with cudaDeviceGetAttribute instead (clock
    rate for the "fastest GPU" choice and the fork weights; the rest only for
    printouts). cudaThreadSynchronize (removed) becomes cudaDeviceSynchronize.
 3. Barriers in the bottom row of blocks. In kernel_short_phase,
    kernel_long_phase and kernel_single_phase, threads whose first row lies
    past the last row skip the diagonal loop, which holds __syncthreads, and
    go on to the block's max reduction, which holds more of them. Before
    Volta a warp met a barrier as a whole; with independent thread
    scheduling (sm_70 on) a warp split by that test can hang or pair up the
    wrong barriers. That matches what was seen on the H100: 2 Mbp ran
    (2,000,000 mod 512 = 128 rows: one whole warp busy, the others idle),
    1 and 5 Mbp hung in the last external diagonals (64 and 320 rows: a warp
    split in two). The idle threads now pass the same number of barriers as
    the busy ones (short phase: THREADS_COUNT; long phase: 1 + xLen + (xLen
    & 1); single phase: 1 + xLen) and do nothing else, so every barrier is
    met by the whole block. Pass --no-barrier-fix to leave this out.
    Measured on an H200 (2026-11-26): the 1 and 5 Mbp runs still hang in
    the last external diagonals, so this is not the cause; 2 Mbp gives the
    same score and time with it.
 4. libs/masa-core SplitCellsReader::read fell off its end without a return
    (unused on this path; -O3 may turn that into a trap): it returns the
    inner reader's count.
 5. The autoconf/automake files get ordered timestamps (inputs, then
    aclocal.m4, then configure, Makefile.in, config.h.in) so that make does
    not try to rerun aclocal-1.11/automake-1.11, installed on neither
    machine; copying a tree file by file leaves them in arbitrary order.
    (bench/masa_side_by_side.sh orders them again before it builds.)
"""
import os
import re
import sys

VERSION = "3.9.1.1024"


def die(msg):
    sys.stderr.write("masa_port: %s\n" % msg)
    sys.exit(1)


def read(path):
    with open(path, encoding="latin-1") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="latin-1") as f:
        f.write(text)


def replace_once(text, old, new, what):
    n = text.count(old)
    if n != 1:
        die("%s: expected one match, found %d" % (what, n))
    return text.replace(old, new)


def replace_all(text, old, new, count, what):
    n = text.count(old)
    if n != count:
        die("%s: expected %d matches, found %d" % (what, count, n))
    return text.replace(old, new)


def add_else_after(text, call, else_body, what):
    """Finds the one call `call...;` that closes `if (...) { if/else { call; } }`
    and appends `else { else_body }` to the outer if."""
    if text.count(call) != 1:
        die("%s: expected one call, found %d" % (what, text.count(call)))
    p = text.index(call)
    p = text.index(";", p)
    p1 = text.index("}", p + 1)
    p2 = text.index("}", p1 + 1)
    if text[p + 1:p1].strip() or text[p1 + 1:p2].strip():
        die("%s: unexpected text after the call" % what)
    return text[:p2 + 1] + " else {\n" + else_body + "    }" + text[p2 + 1:]


DEVICE_HELPERS = r"""
/*
 * CUDA 12+ port: the sequences are read through these pointers (set in
 * bind_textures) instead of texture references; outside [0, len) a read
 * gives 0, as a linear texture fetch did.
 */
__constant__ const unsigned char* port_seq0;
__constant__ int port_seq0_len;
__constant__ const unsigned char* port_seq1;
__constant__ int port_seq1_len;

static __device__ __forceinline__ unsigned char port_fetch(const unsigned char* seq, const int len, const int i) {
	return ((unsigned) i < (unsigned) len) ? __ldg(seq + i) : (unsigned char) 0;
}

/* Barriers passed by threads that have no rows to compute (see kernels). */
static __device__ __forceinline__ void port_idle_barriers(const int count) {
	for (int k = 0; k < count; k++) {
		__syncthreads();
	}
}
"""


def port_cu(path, barrier_fix):
    t = read(path)
    if "port_fetch" in t:
        print("masa_port: %s already ported" % path)
        return
    # 1. Texture declarations -> device pointers (the first one carries the helpers).
    t = replace_once(t, "texture<unsigned char, 1, cudaReadModeElementType> t_seq0;",
                     DEVICE_HELPERS.strip("\n"), "t_seq0 declaration")
    t = replace_once(t, "texture<unsigned char, 1, cudaReadModeElementType> t_seq1;",
                     "/* t_seq1: see port_seq1 above. */", "t_seq1 declaration")
    t = replace_once(t, "texture<         int2, 1, cudaReadModeElementType> t_busH;",
                     "/* t_busH: read as __ldg(busH + j) in kernel_load. */", "t_busH declaration")
    # Reads.
    n = len(re.findall(r"tex1Dfetch\(t_seq0,\s*", t))
    if n != 4:
        die("tex1Dfetch(t_seq0): expected 4, found %d" % n)
    t = re.sub(r"tex1Dfetch\(t_seq0,\s*", "port_fetch(port_seq0, port_seq0_len, ", t)
    t = replace_once(t, "tex1Dfetch(t_seq1, j)", "port_fetch(port_seq1, port_seq1_len, j)", "t_seq1 read")
    t = replace_once(t, "tex1Dfetch(t_busH,j)", "__ldg(busH + j)", "t_busH read")
    # Binding.
    for s in ("0", "1"):
        t = replace_once(
            t, "cutilSafeCall(cudaBindTexture(0, t_seq%s, seq%s, seq%s_len));" % (s, s, s),
            "cutilSafeCall(cudaMemcpyToSymbol(port_seq%s, &seq%s, sizeof(seq%s)));\n"
            "\tcutilSafeCall(cudaMemcpyToSymbol(port_seq%s_len, &seq%s_len, sizeof(seq%s_len)));" % ((s,) * 6),
            "bind t_seq" + s)
        t = replace_once(
            t, "cutilSafeCall(cudaUnbindTexture(t_seq%s));" % s,
            "{ const int zero = 0; cudaMemcpyToSymbol(port_seq%s_len, &zero, sizeof(zero)); (void) cudaGetLastError(); }" % s,
            "unbind t_seq" + s)
    t = replace_once(t, "cutilSafeCall(cudaBindTexture(0, t_busH, cuda->d_busH, cuda->busH_size));",
                     "/* (t_busH bind: busH is read through __ldg now) */", "bind t_busH")
    t = replace_once(t, "cutilSafeCall(cudaUnbindTexture(t_busH));",
                     "/* (t_busH unbind) */", "unbind t_busH")
    if re.search(r"\btexture<|tex1Dfetch|cudaBindTexture|cudaUnbindTexture", t):
        die("texture use left in " + path)
    # 3. Barriers for the idle threads of the bottom row of blocks.
    if barrier_fix:
        t = add_else_after(
            t, "process_internal_diagonals_short_phase<COLUMN_SOURCE, COLUMN_DESTINATION, RECURRENCE_TYPE, CHECK_MAX_SCORE, true> (",
            "        port_idle_barriers(THREADS_COUNT); /* CUDA 12+ port: see port_idle_barriers */\n",
            "short phase")
        t = add_else_after(
            t, "process_internal_diagonals_long_phase<RECURRENCE_TYPE, CHECK_MAX_SCORE, true >(",
            "        port_idle_barriers(1 + xLen + (xLen & 1)); /* CUDA 12+ port: see port_idle_barriers */\n",
            "long phase")
        t = add_else_after(
            t, "process_internal_diagonals_single_phase<COLUMN_SOURCE, COLUMN_DESTINATION, RECURRENCE_TYPE, CHECK_LOCATION, true>(",
            "        port_idle_barriers(1 + xLen); /* CUDA 12+ port: see port_idle_barriers */\n",
            "single phase")
    write(path, t)


UTIL_HELPER = """
/* CUDA 13 port: fields dropped from cudaDeviceProp, read as attributes. */
static int port_device_attr(enum cudaDeviceAttr attr, int dev) {
	int value = 0;
	if (dev < 0) {
		cudaGetDevice(&dev);
	}
	if (cudaDeviceGetAttribute(&value, attr, dev) != cudaSuccess) {
		value = 0;
	}
	return value;
}
"""


def port_util(path):
    t = read(path)
    if "port_device_attr" in t:
        print("masa_port: %s already ported" % path)
        return
    # The helper goes after the last #include.
    last = list(re.finditer(r"^#include[^\n]*\n", t, re.M))
    if not last:
        die("no #include in " + path)
    p = last[-1].end()
    t = t[:p] + UTIL_HELPER + t[p:]
    t = replace_once(t, "devProp.clockRate);", "port_device_attr(cudaDevAttrClockRate, -1));", "printDevProp clock")
    t = replace_once(t, "(devProp.deviceOverlap ?", "(port_device_attr(cudaDevAttrGpuOverlap, -1) ?",
                     "printDevProp overlap")
    t = replace_once(t, "(devProp.kernelExecTimeoutEnabled ?", "(port_device_attr(cudaDevAttrKernelExecTimeout, -1) ?",
                     "printDevProp timeout")
    t = replace_once(t, "bool timeout = devProp.kernelExecTimeoutEnabled;",
                     "bool timeout = port_device_attr(cudaDevAttrKernelExecTimeout, deviceId) != 0;",
                     "printGPUDevices timeout")
    t = replace_once(t, "int speed = devProp.clockRate*", "int speed = port_device_attr(cudaDevAttrClockRate, deviceId)*",
                     "getGPUWeights clock")
    t = replace_once(t, "sm_per_multiproc * deviceProp.clockRate;",
                     "sm_per_multiproc * port_device_attr(cudaDevAttrClockRate, current_device);",
                     "cutGetMaxGflopsDeviceId clock")
    for field in ("clockRate", "deviceOverlap", "kernelExecTimeoutEnabled", "memoryClockRate", "computeMode",
                  "maxTexture1DLinear"):
        if re.search(r"[Pp]rop\." + field + r"\b", t):
            die("cudaDeviceProp.%s still used in %s" % (field, path))
    write(path, t)


def port_util_h(path):
    t = read(path)
    if "cudaThreadSynchronize" in t:
        write(path, t.replace("cudaThreadSynchronize", "cudaDeviceSynchronize"))


def port_split_reader(path):
    t = read(path)
    if "\treturn reader->read(buf, len);" in t:
        return
    t = replace_once(t, "\treader->read(buf, len);", "\treturn reader->read(buf, len);", "SplitCellsReader::read")
    write(path, t)


def order_autoconf_times(top):
    """inputs < aclocal.m4 < configure, Makefile.in, config.h.in (per package)."""
    base = 946684800  # 2000-01-01, older than anything a build writes
    for pkg in (top, os.path.join(top, "libs", "masa-core")):
        stages = [
            ["configure.ac", "Makefile.am", "m4/ax_check_compile_flag.m4"],
            ["aclocal.m4"],
            ["configure", "Makefile.in", "src/config.h.in"],
        ]
        for k, names in enumerate(stages):
            for name in names:
                path = os.path.join(pkg, name)
                if os.path.exists(path):
                    os.utime(path, (base + k, base + k))


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    barrier_fix = "--no-barrier-fix" not in argv[1:]
    if len(args) != 1:
        sys.stderr.write("usage: masa_port.py [--no-barrier-fix] SRC_DIR\n")
        return 2
    top = args[0]
    conf = os.path.join(top, "configure.ac")
    if not os.path.exists(conf) or VERSION not in read(conf):
        die("%s is not a MASA-CUDAlign %s tree" % (top, VERSION))
    port_cu(os.path.join(top, "src", "CUDAligner.cu"), barrier_fix)
    port_util(os.path.join(top, "src", "cuda_util.cpp"))
    port_util_h(os.path.join(top, "src", "cuda_util.h"))
    port_split_reader(os.path.join(top, "libs", "masa-core", "src", "common", "io", "SplitCellsReader.cpp"))
    order_autoconf_times(top)
    print("masa_port: %s ported (barrier fix %s)" % (top, "on" if barrier_fix else "off"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
