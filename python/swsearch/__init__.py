"""swsearch: exact Smith-Waterman protein database search, on GPUs and CPUs.

A thin layer over libswsearch (include/swsearch.h): databases, searches and
their hits, with BLAST's tabular field names::

    import swsearch
    swsearch.makedb("sprot.fasta", "db/sprot")
    with swsearch.Database("db/sprot") as db:
        for hit in db.search("queries.fasta", evalue=1e-5):
            print(hit.qseqid, hit.sseqid, hit.evalue, hit.bitscore)
    swsearch.align(chr1_part, chr2_part)   # long DNA pairs

Every call into the library releases the GIL, so searches in several
Python threads run at once (each on its own search settings; a database
may be shared).
"""
import collections
import os
import threading
import warnings

from ._swsearch import ffi, lib

__all__ = [
    "Database", "Hit", "Hits", "makedb", "MakeDbResult", "FIELDS", "version", "align", "Alignment",
    "SwsearchError", "SwsearchWarning", "AllocationError", "ReadWriteError", "FormatError", "CorruptError",
    "VersionError", "InvalidArgumentError", "NotFoundError", "NoDeviceError", "DeviceError", "LimitError",
    "BusyError", "CancelledError",
]

__version__ = ffi.string(lib.sw_version_string()).decode()


def version():
    """The library's version, as (major, minor, patch)."""
    n = lib.sw_version_number()
    return (n // 10000, n // 100 % 100, n % 100)


# ---- Errors ---------------------------------------------------------------


class SwsearchError(Exception):
    """A failure the library reported: `message` is its text for a user
    ("q.fa:12: invalid residue '#' in sequence P12345"), `code` its SW_E*
    code (negative)."""

    code = lib.SW_EINVAL

    def __init__(self, message, *args):
        super().__init__(message, *args)
        self.message = message


class AllocationError(SwsearchError, MemoryError):
    code = lib.SW_ENOMEM


class ReadWriteError(SwsearchError, OSError):
    code = lib.SW_EIO


class FormatError(SwsearchError, ValueError):
    """Malformed input: FASTA, a matrix, a residue the alphabet lacks."""
    code = lib.SW_EFORMAT


class CorruptError(SwsearchError):
    code = lib.SW_ECORRUPT


class VersionError(SwsearchError):
    code = lib.SW_EVERSION


class InvalidArgumentError(SwsearchError, ValueError):
    code = lib.SW_EINVAL


class NotFoundError(SwsearchError, FileNotFoundError):
    """A file (database, queries, matrix) or named matrix that does not exist."""
    code = lib.SW_ENOTFOUND


class NoDeviceError(SwsearchError):
    code = lib.SW_ENODEV


class DeviceError(SwsearchError):
    code = lib.SW_EDEVICE


class LimitError(SwsearchError):
    code = lib.SW_ELIMIT


class BusyError(SwsearchError):
    code = lib.SW_EBUSY


class CancelledError(SwsearchError):
    """A run stopped because its cancel function asked it to."""
    code = lib.SW_ECANCELED


_ERRORS = {c.code: c for c in (AllocationError, ReadWriteError, FormatError, CorruptError, VersionError,
                               InvalidArgumentError, NotFoundError, NoDeviceError, DeviceError, LimitError,
                               BusyError, CancelledError)}


class SwsearchWarning(UserWarning):
    """What the library says that is not an error: a skipped empty
    sequence, a search on the CPU for want of a usable GPU."""


def _raise(rc, err):
    message = ffi.string(err.message).decode("utf-8", "replace") if err.message[0] != b"\0" else ""
    if not message:
        message = ffi.string(lib.sw_strerror(rc)).decode()
    e = _ERRORS.get(rc, SwsearchError)(message)
    e.code = rc
    raise e


def _check(rc, err):
    if rc != lib.SW_OK:
        _raise(rc, err)


class _Messages:
    """Collects the library's messages during a call (the callback runs on
    the calling thread); they become warnings once the call is back."""

    def __init__(self):
        self.texts = []
        self.handle = ffi.new_handle(self)

    def emit(self):
        for t in self.texts:
            warnings.warn(t, SwsearchWarning, stacklevel=3)


@ffi.def_extern()
def swsearch_py_message(user, message):
    ffi.from_handle(user).texts.append(ffi.string(message).decode("utf-8", "replace"))


# ---- Databases ------------------------------------------------------------

MakeDbResult = collections.namedtuple("MakeDbResult", "sequences residues")


def makedb(fasta, path, dna=False, threads=0, level=0):
    """Builds a database at `path` (a prefix: "db/sprot") from a FASTA file
    (plain or zstd-compressed), replacing the one there in one step.
    Returns (sequences, residues)."""
    err = ffi.new("sw_error *")
    opt = ffi.new("sw_db_make_options *")
    opt.alphabet = lib.SW_ALPHABET_DNA if dna else lib.SW_ALPHABET_PROTEIN
    opt.threads = threads
    opt.level = level
    messages = _Messages()
    opt.message = lib.swsearch_py_message
    opt.message_user = messages.handle
    seqs, residues = ffi.new("uint64_t *"), ffi.new("uint64_t *")
    rc = lib.sw_db_make(os.fsencode(fasta), os.fsencode(path), opt, seqs, residues, err)
    messages.emit()
    _check(rc, err)
    return MakeDbResult(seqs[0], residues[0])


class Database:
    """A database that makedb (or `makedb()`) wrote, opened for searches.

    `path` is its prefix ("db/sprot" for db/sprot.swi and its data files).
    A context manager; several threads may search it at once."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._db = ffi.NULL
        self._lock = threading.Lock()
        self._searches = 0
        err = ffi.new("sw_error *")
        out = ffi.new("sw_db **")
        _check(lib.sw_db_open(os.fsencode(self.path), out, err), err)
        self._db = out[0]

    def close(self):
        """Closes the database; a second close does nothing. Refused while
        a search in another thread reads it."""
        with self._lock:
            if self._searches:
                raise RuntimeError("the database is being searched")
            db, self._db = self._db, ffi.NULL
        if db != ffi.NULL:
            lib.sw_db_close(db)

    def __del__(self):
        if getattr(self, "_db", ffi.NULL) != ffi.NULL and not self._searches:
            lib.sw_db_close(self._db)
            self._db = ffi.NULL

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self):
        return self._db == ffi.NULL

    def _handle(self):
        if self._db == ffi.NULL:
            raise ValueError("the database is closed")
        return self._db

    def __len__(self):
        return lib.sw_db_num_seqs(self._handle())

    @property
    def residues(self):
        """Residues of every sequence together."""
        return lib.sw_db_num_residues(self._handle())

    @property
    def max_length(self):
        """The longest sequence's length."""
        return lib.sw_db_max_length(self._handle())

    @property
    def alphabet(self):
        """"protein" or "dna"."""
        return "dna" if lib.sw_db_alphabet(self._handle()) == lib.SW_ALPHABET_DNA else "protein"

    def __repr__(self):
        if self.closed:
            return "<swsearch.Database {!r} (closed)>".format(self.path)
        return "<swsearch.Database {!r}: {} sequences, {} residues>".format(self.path, len(self), self.residues)

    def search(self, queries, matrix="BLOSUM62", gap_open=11, gap_extend=1, evalue=10.0, top=500, device="auto",
               gpus=None, threads=0, alignments=True, statistics="auto", gpu_memory=0):
        """Searches the database; returns the hits (a list of `Hit`) in the
        program's order: queries in input order, each query's hits in
        BLAST's (E-value, then score, then database order).

        `queries` is one of:
          - an os.PathLike (such as pathlib.Path), or a str that names an
            existing file or holds a '/' or a '.' (never in a sequence): a
            FASTA file, plain or zstd-compressed ("-": standard input), as
            BLAST's -query reads;
          - any other str: one sequence, named "query1";
          - a list of str: sequences, named "query1", "query2", ...;
          - a list of (header, sequence) pairs: the header as after '>' in
            FASTA, an identifier then an optional description.
        A scoring gap of k residues costs gap_open + k * gap_extend.
        `device` is "auto" (the GPUs when one is usable, else the CPU),
        "cpu" or "gpu"; `gpus` None (every GPU), a number N (the first N)
        or a list of CUDA device numbers; `threads` 0 uses every core.
        `statistics`: "auto", "table" or "fit" (the program's --stats).
        `gpu_memory`: the bytes the database may take on each GPU (0: its
        free memory less a margin; the kernels' working buffers come on
        top); a larger database is streamed in parts (--gpu-memory).
        Without `alignments`, only scores, E-values and bit scores are
        computed: coordinates and counts are 0, rows ""."""
        seqs, fasta = _queries(queries)
        err = ffi.new("sw_error *")
        s_out = ffi.new("sw_search **")
        _check(lib.sw_search_create(s_out, err), err)
        s = ffi.gc(s_out[0], lib.sw_search_free)
        messages = _Messages()
        _check(lib.sw_search_set_matrix(s, os.fsencode(matrix), err), err)
        _check(lib.sw_search_set_gap_costs(s, gap_open, gap_extend, err), err)
        _check(lib.sw_search_set_evalue(s, evalue, err), err)
        if top < 1:
            raise InvalidArgumentError("top must be 1 or more, not {}".format(top))
        _check(lib.sw_search_set_top(s, top, err), err)
        _check(lib.sw_search_set_device(s, _choice("device", device, _DEVICES), err), err)
        if gpus is not None:
            if isinstance(gpus, int):
                _check(lib.sw_search_set_gpus(s, ffi.NULL, gpus, err), err)
            else:
                ids = list(gpus)
                _check(lib.sw_search_set_gpus(s, ffi.new("int[]", ids), len(ids), err), err)
        _check(lib.sw_search_set_gpu_memory(s, gpu_memory, err), err)
        _check(lib.sw_search_set_threads(s, threads, err), err)
        _check(lib.sw_search_set_statistics(s, _choice("statistics", statistics, _STATISTICS), err), err)
        _check(lib.sw_search_set_alignments(s, 1 if alignments else 0, err), err)
        _check(lib.sw_search_set_messages(s, lib.swsearch_py_message, messages.handle, err), err)

        hits_out = ffi.new("sw_hits **")
        with self._lock:
            db = self._handle()
            self._searches += 1
        try:
            if fasta is not None:
                rc = lib.sw_search_run_fasta(s, db, fasta, hits_out, err)
            else:
                keep = []
                arr = ffi.new("sw_sequence[]", len(seqs))
                for i, (header, residues) in enumerate(seqs):
                    keep.append(ffi.new("char[]", header))
                    keep.append(ffi.new("char[]", residues))
                    arr[i].header = keep[-2]
                    arr[i].residues = keep[-1]
                    arr[i].length = len(residues)
                rc = lib.sw_search_run(s, db, arr, len(seqs), hits_out, err)
        finally:
            with self._lock:
                self._searches -= 1
        messages.emit()
        _check(rc, err)
        h = ffi.gc(hits_out[0], lib.sw_hits_free)
        try:
            return _collect(h)
        finally:
            ffi.release(h)


_DEVICES = {"auto": lib.SW_DEVICE_AUTO, "cpu": lib.SW_DEVICE_CPU, "gpu": lib.SW_DEVICE_GPU}
_STATISTICS = {"auto": lib.SW_STATS_AUTO, "table": lib.SW_STATS_TABLE, "fit": lib.SW_STATS_FIT}
_SPLITS = {"columns": lib.SW_ALIGN_SPLIT_COLUMNS, "rows": lib.SW_ALIGN_SPLIT_ROWS}


def _choice(what, value, choices):
    try:
        return choices[value]
    except (KeyError, TypeError):
        raise InvalidArgumentError("{} must be one of {}, not {!r}".format(what, ", ".join(choices), value)) from None


def _text(value, what):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError("{} must be str or bytes, not {}".format(what, type(value).__name__))


def _queries(queries):
    """([(header, residues)], None) for queries in memory, (None, path) for
    a FASTA file."""
    if isinstance(queries, os.PathLike):
        return None, os.fsencode(queries)
    if isinstance(queries, (str, bytes)):
        # '/' and '.' are never residues: a str with one is a (mistyped) path.
        s = os.fsdecode(queries)
        if s == "-" or "/" in s or "." in s or os.path.isfile(s):
            return None, os.fsencode(s)
        return [(b"", _text(queries, "a query"))], None
    seqs = []
    for q in queries:
        if isinstance(q, (str, bytes)):
            seqs.append((b"", _text(q, "a query")))
        else:
            header, residues = q
            seqs.append((_text(header, "a query's header"), _text(residues, "a query's sequence")))
    return seqs, None


# ---- Hits -----------------------------------------------------------------

#: A hit's fields, in the order of `Hit.as_dict()`: BLAST's --outfmt 6 names.
FIELDS = ("qseqid", "sseqid", "stitle", "qlen", "slen", "score", "evalue", "bitscore", "qstart", "qend", "sstart",
          "send", "length", "nident", "mismatch", "positive", "gapopen", "gaps", "pident", "ppos", "qcovhsp", "qseq",
          "sseq", "cigar", "btop")
_STRINGS = frozenset(("qseqid", "sseqid", "stitle", "qseq", "sseq", "cigar", "btop"))

#: BLAST's other names for the same fields (as `swsearch search --outfmt` reads them).
ALIASES = {"qacc": "qseqid", "qaccver": "qseqid", "sacc": "sseqid", "saccver": "sseqid", "salltitles": "stitle",
           "qcovs": "qcovhsp"}


class Hit:
    """One hit, with BLAST's tabular field names (FIELDS) and its aliases
    (ALIASES): coordinates 1-based and inclusive, pident and ppos in
    percent, evalue and bitscore unrounded."""

    __slots__ = FIELDS

    def __init__(self, **fields):
        for name in FIELDS:
            setattr(self, name, fields[name])

    def __getattr__(self, name):
        if name in ALIASES:
            return getattr(self, ALIASES[name])
        raise AttributeError("'Hit' has no field '{}'".format(name))

    def fields(self, *names):
        """The values of the named fields (aliases too), as a tuple."""
        return tuple(getattr(self, n) for n in names)

    def as_dict(self):
        """Every field by name, in FIELDS' order: a list of these is a
        pandas.DataFrame's input."""
        return {n: getattr(self, n) for n in FIELDS}

    def __eq__(self, other):
        if not isinstance(other, Hit):
            return NotImplemented
        return self.fields(*FIELDS) == other.fields(*FIELDS)

    __hash__ = None

    def __repr__(self):
        return ("Hit(qseqid={!r}, sseqid={!r}, score={}, evalue={:.3g}, bitscore={:.1f}, pident={:.2f}, "
                "length={}, qstart={}, qend={}, sstart={}, send={})").format(
                    self.qseqid, self.sseqid, self.score, self.evalue, self.bitscore, self.pident, self.length,
                    self.qstart, self.qend, self.sstart, self.send)


class Hits(list):
    """The hits of a search (a list of Hit), with the engine that ran it and
    every query's (qseqid, qlen), hits or not."""

    def __init__(self, hits, engine, queries):
        super().__init__(hits)
        self.engine = engine
        self.queries = queries

    def as_dicts(self):
        """One dict a hit: pandas.DataFrame(hits.as_dicts())."""
        return [h.as_dict() for h in self]


def _collect(h):
    out, queries = [], []
    info = ffi.new("sw_hit_info *")
    err = ffi.new("sw_error *")
    string = ffi.string
    for q in range(lib.sw_hits_num_queries(h)):
        queries.append((string(lib.sw_hits_query_id(h, q)).decode("utf-8", "replace"), lib.sw_hits_query_length(h, q)))
        for i in range(lib.sw_hits_count(h, q)):
            _check(lib.sw_hits_get(h, q, i, info, err), err)
            hit = Hit.__new__(Hit)
            for name in FIELDS:
                v = getattr(info, name)
                if name in _STRINGS:
                    v = string(v).decode("utf-8", "replace")
                setattr(hit, name, v)
            out.append(hit)
    return Hits(out, string(lib.sw_hits_engine(h)).decode("utf-8", "replace"), queries)


Alignment = collections.namedtuple(
    "Alignment", "score x_start x_end y_start y_end columns matches mismatches gap_openings gap_bases identity cigar "
    "engine")
Alignment.__doc__ = """One local alignment of two DNA sequences: coordinates 1-based and
inclusive, identity in percent, the CIGAR with I for x against a gap; score
0 (and nothing else) when no pair of bases scores above zero."""


def align(x, y, match=1, mismatch=-3, gap_open=3, gap_extend=2, device="auto", gpus=None, threads=0, best=1,
          path=True, split="columns"):
    """The best local alignment of two DNA sequences (str or bytes, up to
    2^31 bases each; A, C, G, T either case, other IUPAC codes score as
    mismatches), exact, as `swsearch align` finds it; with best=K, a list
    of the K best that share no cell (fewer where no more score above 0).
    The gap of k bases costs gap_open + k * gap_extend. path=False: score
    and coordinates only. gpus: how many GPUs (or which) share the passes,
    in column strips, or with split="rows" the forward pass in row slices."""
    err = ffi.new("sw_error *")
    a_out = ffi.new("sw_aligner **")
    _check(lib.sw_aligner_create(a_out, err), err)
    a = ffi.gc(a_out[0], lib.sw_aligner_free)
    _check(lib.sw_aligner_set_scores(a, match, mismatch, gap_open, gap_extend, err), err)
    _check(lib.sw_aligner_set_device(a, _choice("device", device, _DEVICES), err), err)
    if gpus is not None:
        if isinstance(gpus, int):
            _check(lib.sw_aligner_set_gpus(a, ffi.NULL, gpus, err), err)
        else:
            ids = list(gpus)
            _check(lib.sw_aligner_set_gpus(a, ffi.new("int[]", ids), len(ids), err), err)
    _check(lib.sw_aligner_set_gpu_split(a, _choice("split", split, _SPLITS), err), err)
    _check(lib.sw_aligner_set_threads(a, threads, err), err)
    _check(lib.sw_aligner_set_best(a, best, err), err)
    _check(lib.sw_aligner_set_path(a, 1 if path else 0, err), err)
    xb, yb = _bases(x, "x"), _bases(y, "y")
    r_out = ffi.new("sw_aligned **")
    _check(lib.sw_aligner_run(a, xb, len(xb), yb, len(yb), r_out, err), err)
    r = ffi.gc(r_out[0], lib.sw_aligned_free)
    info = ffi.new("sw_aligned_info *")
    found = []
    for i in range(lib.sw_aligned_count(r)):
        _check(lib.sw_aligned_get(r, i, info, err), err)
        found.append(Alignment(info.score, info.x_start, info.x_end, info.y_start, info.y_end, info.columns,
                               info.matches, info.mismatches, info.gap_openings, info.gap_bases, info.identity,
                               ffi.string(info.cigar).decode(), ffi.string(info.engine).decode()))
    return found if best > 1 else found[0]


def _bases(value, what):
    if isinstance(value, str):
        value = value.encode("ascii", "replace")
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError("{}: a DNA sequence (str or bytes), not {}".format(what, type(value).__name__))
    if not value:
        raise InvalidArgumentError("sequence {} is empty".format(what))
    return bytes(value)
