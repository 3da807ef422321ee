# Databases: made, opened, counted, closed.
import pytest

import swsearch


def test_makedb_returns_the_counts(tmp_path, data_dir):
    made = swsearch.makedb(data_dir / "swissprot_like_2500.fa.zst", tmp_path / "db", threads=1, level=3)
    sequences, residues = made
    assert (sequences, made.residues) == (2500, residues)
    with swsearch.Database(tmp_path / "db") as db:
        assert (len(db), db.residues) == (sequences, residues)


def test_a_database_has_its_counts_path_and_alphabet(db, db_path):
    assert len(db) == 2500
    assert db.residues > 2500 and 0 < db.max_length <= db.residues
    assert db.alphabet == "protein"
    assert db.path == str(db_path)
    assert "2500 sequences" in repr(db)


def test_the_context_manager_closes(db_path):
    with swsearch.Database(db_path) as db:
        assert not db.closed
    assert db.closed
    with pytest.raises(ValueError, match="closed"):
        len(db)
    with pytest.raises(ValueError, match="closed"):
        db.search("MKVLAT")
    db.close()


def test_a_dna_database_is_made_and_refused_by_a_protein_search(tmp_path):
    fasta = tmp_path / "dna.fa"
    fasta.write_text(">a\nACGTACGTTAGC\n>b\nGGGCCCAAATTT\n")
    assert swsearch.makedb(fasta, tmp_path / "dna", dna=True) == (2, 24)
    with swsearch.Database(tmp_path / "dna") as db:
        assert db.alphabet == "dna"
        with pytest.raises(swsearch.FormatError):
            db.search("MKVLAT")


def test_version_is_the_librarys():
    assert swsearch.__version__ == "{}.{}.{}".format(*swsearch.version())


def test_makedb_warns_of_a_skipped_empty_sequence(tmp_path, data_dir):
    with pytest.warns(swsearch.SwsearchWarning, match="P2"):
        assert swsearch.makedb(data_dir / "fasta_empty_sequence.fa", tmp_path / "db") == (2, 6)
