# swsearch.align against `swsearch align` (PAF: coordinates, score, CIGAR),
# best-K, and its errors.
import random
import subprocess

import pytest

import swsearch


def _pair(seed, n=3000):
    rng = random.Random(seed)
    x = "".join(rng.choice("ACGT") for _ in range(n))
    # y: a mutated middle of x (substitutions and short indels) in new flanks.
    mid = list(x[n // 4: 3 * n // 4])
    for _ in range(60):
        k = rng.randrange(len(mid))
        r = rng.random()
        if r < 0.6:
            mid[k] = rng.choice("ACGT")
        elif r < 0.8:
            del mid[k]
        else:
            mid.insert(k, rng.choice("ACGT"))
    flank = lambda: "".join(rng.choice("ACGT") for _ in range(400))
    return x, flank() + "".join(mid) + flank()


def test_align_equals_the_program(tmp_path, swsearch_bin):
    x, y = _pair(7)
    fasta = tmp_path / "xy.fa"
    fasta.write_text(">x\n{}\n>y\n{}\n".format(x, y))
    paf = subprocess.run([swsearch_bin, "align", str(fasta), "--engine", "cpu", "--format", "paf"],
                         check=True, capture_output=True, text=True).stdout.split("\t")
    a = swsearch.align(x, y, device="cpu")
    # PAF: 0-based start, end exclusive.
    assert (a.x_start - 1, a.x_end, a.y_start - 1, a.y_end) == (int(paf[2]), int(paf[3]), int(paf[7]), int(paf[8]))
    assert "AS:i:{}".format(a.score) in paf
    assert "cg:Z:{}".format(a.cigar) in [f.strip() for f in paf]
    assert a.matches == int(paf[9]) and a.columns == int(paf[10])
    assert a.engine == "cpu"


def test_best_k_share_no_cell():
    motif = "GATTACAGATTACACCGGTT"
    x = motif + "T" * 30 + motif
    y = "CCC" + motif + "CCC"
    first, second = swsearch.align(x, y, device="cpu", best=2)
    assert first.score == second.score == len(motif)
    assert {first.x_start, second.x_start} == {1, len(motif) + 31}


def test_no_path_gives_coordinates_only():
    a = swsearch.align("ACGTACGTAC", "TTACGTACGTACTT", device="cpu", path=False)
    assert a.score > 0 and a.cigar == "" and a.columns == 0


def test_split_of_the_passes():
    a = swsearch.align("ACGTACGTAC", "TTACGTACGTACTT", device="cpu", split="rows")
    assert a == swsearch.align("ACGTACGTAC", "TTACGTACGTACTT", device="cpu")
    with pytest.raises(swsearch.InvalidArgumentError, match="split"):
        swsearch.align("ACGT", "ACGT", split="diagonal")


def test_errors_name_the_problem():
    with pytest.raises(swsearch.FormatError, match="position 3"):
        swsearch.align("ACGT", "AC#T", device="cpu")
    with pytest.raises(swsearch.InvalidArgumentError, match="match"):
        swsearch.align("ACGT", "ACGT", match=0)
    with pytest.raises(swsearch.InvalidArgumentError):
        swsearch.align("", "ACGT")
    with pytest.raises(TypeError):
        swsearch.align(42, "ACGT")
