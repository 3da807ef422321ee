# Failures raise SwsearchError (a subclass by code) with the library's
# message and code.
import pytest

import swsearch


def test_a_missing_database_is_not_found_and_named(tmp_path):
    with pytest.raises(swsearch.NotFoundError) as e:
        swsearch.Database(tmp_path / "no-such-db")
    assert e.value.code == swsearch.NotFoundError.code < 0
    assert "no-such-db" in e.value.message
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, swsearch.SwsearchError)


def test_a_bad_residue_names_the_query_and_the_residue(db):
    with pytest.raises(swsearch.FormatError) as e:
        db.search([("good", "MKVLAT"), ("P12345 a bad one", "MKV#LAT")])
    assert "P12345" in str(e.value) and "'#'" in str(e.value) and "position 4" in str(e.value)
    assert e.value.code == swsearch.FormatError.code


def test_an_unknown_matrix_is_named(db):
    with pytest.raises(swsearch.SwsearchError) as e:
        db.search("MKVLAT", matrix="NOSUCH62")
    assert "NOSUCH62" in e.value.message


def test_a_missing_query_file_is_not_found(db, tmp_path):
    with pytest.raises(swsearch.NotFoundError) as e:
        db.search(tmp_path / "none.fa")
    assert "none.fa" in e.value.message


def test_unknown_choices_are_refused_before_the_search(db):
    with pytest.raises(swsearch.InvalidArgumentError, match="device"):
        db.search("MKVLAT", device="tpu")
    with pytest.raises(swsearch.InvalidArgumentError, match="statistics"):
        db.search("MKVLAT", statistics="exact")
    with pytest.raises(ValueError, match="top"):
        db.search("MKVLAT", top=0)


def test_a_bad_fasta_file_names_its_line(db, data_dir):
    with pytest.raises(swsearch.FormatError) as e:
        db.search(data_dir / "fasta_bad_residue.fa")
    assert "fasta_bad_residue.fa:" in e.value.message


def test_makedb_reports_a_missing_fasta(tmp_path):
    with pytest.raises(swsearch.NotFoundError) as e:
        swsearch.makedb(tmp_path / "none.fa", tmp_path / "db")
    assert "none.fa" in e.value.message
