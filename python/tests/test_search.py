# Database.search against `swsearch search`: the same hits, in the same
# order, field by field.
import subprocess

import pytest

import swsearch

COLUMNS = "qseqid sseqid score evalue bitscore qstart qend sstart send pident length mismatch gapopen gaps cigar qseq sseq"


def blast_evalue(e):
    """The program's E-value text (BLAST+'s CAlignFormatUtil::GetScoreString)."""
    if e < 1.0e-180:
        return "0.0"
    if e < 1.0e-99:
        return "%.0e" % e
    if e < 0.0009:
        return "%.2e" % e
    if e < 0.1:
        return "%.3f" % e
    if e < 1.0:
        return "%.2f" % e
    if e < 10.0:
        return "%.1f" % e
    return "%.0f" % e


def blast_bitscore(b):
    if b > 99999:
        return "%.3e" % b
    if b > 99.9:
        return "%d" % int(b)
    return "%.1f" % b


def as_program_row(h):
    return [h.qseqid, h.sseqid, str(h.score), blast_evalue(h.evalue), blast_bitscore(h.bitscore), str(h.qstart),
            str(h.qend), str(h.sstart), str(h.send), "%.3f" % h.pident, str(h.length), str(h.mismatch),
            str(h.gapopen), str(h.gaps), h.cigar, h.qseq, h.sseq]


@pytest.fixture(scope="module")
def program_rows(swsearch_bin, db_path, queries_path):
    out = subprocess.run([swsearch_bin, "search", "-q", str(queries_path), "-d", str(db_path), "--device", "cpu",
                          "--outfmt", "6 " + COLUMNS], check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


@pytest.fixture(scope="module")
def hits(db, queries_path):
    return db.search(queries_path, device="cpu")


def test_hits_are_the_programs_field_by_field(hits, program_rows):
    assert len(program_rows) > 100
    assert len(hits) == len(program_rows)
    names = COLUMNS.split()
    for i, (hit, row) in enumerate(zip(hits, program_rows)):
        for name, mine, theirs in zip(names, as_program_row(hit), row):
            assert mine == theirs, "hit {} ({} {}): {} is {!r}, the program prints {!r}".format(
                i + 1, hit.qseqid, hit.sseqid, name, mine, theirs)


def test_hits_come_in_query_order_then_blast_order(hits, queries):
    ids = [h.split()[0] for h, _ in queries]
    order = [ids.index(h.qseqid) for h in hits]
    assert order == sorted(order)
    for a, b in zip(hits, hits[1:]):
        if a.qseqid == b.qseqid:
            assert (a.evalue, -a.score) <= (b.evalue, -b.score)


def test_every_query_is_listed_with_its_length(hits, queries):
    assert [q for q, _ in hits.queries] == [h.split()[0] for h, _ in queries]
    assert [n for _, n in hits.queries] == [len(s) for _, s in queries]


def test_counts_agree_with_the_rows(hits):
    for h in hits:
        assert h.length == len(h.qseq) == len(h.sseq)
        assert h.nident == sum(a == b for a, b in zip(h.qseq, h.sseq))
        assert h.gaps == h.qseq.count("-") + h.sseq.count("-")
        assert h.qend - h.qstart + 1 == h.length - h.qseq.count("-")
        assert h.send - h.sstart + 1 == h.length - h.sseq.count("-")
        assert h.pident == pytest.approx(100.0 * h.nident / h.length)
        assert h.qcovhsp == pytest.approx(100.0 * (h.qend - h.qstart + 1) / h.qlen)
        assert h.stitle.split()[0] == h.sseqid


def test_blast_aliases_name_the_same_fields(hits):
    h = hits[0]
    assert h.fields("qacc", "qaccver", "sacc", "saccver", "salltitles", "qcovs") == \
        (h.qseqid, h.qseqid, h.sseqid, h.sseqid, h.stitle, h.qcovhsp)
    with pytest.raises(AttributeError):
        h.no_such_field


def test_as_dict_lists_every_field(hits):
    d = hits[0].as_dict()
    assert tuple(d) == swsearch.FIELDS
    assert hits.as_dicts()[0] == d
    assert "qseqid=" in repr(hits[0]) and "evalue=" in repr(hits[0])


def test_without_alignments_scores_stay_and_coordinates_are_empty(db, queries, hits):
    first = [h for h in hits if h.qseqid == queries[0][0].split()[0]]
    bare = db.search(queries[:1], device="cpu", alignments=False)
    assert [(h.sseqid, h.score, h.evalue, h.bitscore) for h in bare] == \
        [(h.sseqid, h.score, h.evalue, h.bitscore) for h in first]
    assert all(h.length == 0 and h.qseq == "" and h.cigar == "" for h in bare)


def test_evalue_and_top_limit_the_hits(db, queries, hits):
    first = [h for h in hits if h.qseqid == queries[0][0].split()[0]]
    assert [h.sseqid for h in db.search(queries[:1], device="cpu", top=3)] == [h.sseqid for h in first[:3]]
    strict = db.search(queries[:1], device="cpu", evalue=1e-10)
    assert [h.sseqid for h in strict] == [h.sseqid for h in first if h.evalue <= 1e-10]


def test_the_gpus_give_the_cpus_hits(db, queries, hits):
    """On a machine with a GPU: the same hits, field by field; skipped
    without one."""
    try:
        on_gpu = db.search(queries, device="gpu")
    except swsearch.NoDeviceError as e:
        pytest.skip("no usable GPU: {}".format(e))
    assert "GPU" in on_gpu.engine
    assert len(on_gpu) == len(hits)
    for g, c in zip(on_gpu, hits):
        assert g == c
    aligned = swsearch.align("ACGTTGCAACGGTCAGGATCCA" * 40, "ACGTTGCAACTCAGGATCCA" * 40, device="gpu")
    assert aligned == swsearch.align("ACGTTGCAACGGTCAGGATCCA" * 40, "ACGTTGCAACTCAGGATCCA" * 40,
                                     device="cpu")._replace(engine=aligned.engine)
