# The forms queries may take give the same hits: one string, a list of
# strings, (header, sequence) pairs, a FASTA path as str or os.PathLike.
import pathlib

import pytest


@pytest.fixture(scope="module")
def three(queries):
    return queries[:3]


@pytest.fixture(scope="module")
def three_fasta(tmp_path_factory, three):
    path = tmp_path_factory.mktemp("queries") / "three.fa"
    path.write_text("".join(">{}\n{}\n".format(h, s) for h, s in three))
    return path


@pytest.fixture(scope="module")
def from_path(db, three_fasta):
    return db.search(three_fasta, device="cpu")


def without_qseqid(hits):
    return [{k: v for k, v in h.as_dict().items() if k != "qseqid"} for h in hits]


def test_pairs_give_the_hits_of_their_fasta_file(db, three, from_path):
    assert len(from_path) > 0
    assert db.search(three, device="cpu") == from_path


def test_a_path_as_str_or_pathlike_reads_the_file(db, three_fasta, from_path):
    assert db.search(str(three_fasta), device="cpu") == from_path
    assert db.search(pathlib.PurePath(three_fasta), device="cpu") == from_path


def test_strings_are_named_query1_query2(db, three, from_path):
    hits = db.search([s for _, s in three], device="cpu")
    assert without_qseqid(hits) == without_qseqid(from_path)
    assert [q for q, _ in hits.queries] == ["query1", "query2", "query3"]


def test_one_string_is_one_sequence(db, three, from_path):
    hits = db.search(three[0][1], device="cpu")
    first = [h for h in from_path if h.qseqid == three[0][0].split()[0]]
    assert without_qseqid(hits) == without_qseqid(first)
    assert {h.qseqid for h in hits} == {"query1"}


def test_a_header_is_an_identifier_then_a_description(db, three):
    hits = db.search([("myquery some description", three[0][1])], device="cpu")
    assert hits.queries[0][0] == "myquery"
    assert all(h.qseqid == "myquery" for h in hits)


def test_lower_case_residues_are_read_as_upper_case(db, three, from_path):
    hits = db.search([(h, s.lower()) for h, s in three], device="cpu")
    assert [(h.sseqid, h.score) for h in hits] == [(h.sseqid, h.score) for h in from_path]


def test_a_str_with_a_dot_or_slash_is_a_path_even_when_missing(db, tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.fa"):
        db.search("missing.fa")
    with pytest.raises(FileNotFoundError, match="queries"):
        db.search(str(tmp_path / "queries"))
