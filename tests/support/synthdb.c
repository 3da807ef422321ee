/* synthdb: deterministic synthetic sequence data for benchmarks.
 *
 *   synthdb protein [--seqs N] [--seed S] [--plant queries.fasta] > db.fasta
 *       Swiss-Prot-like protein database: a length mixture fitted to
 *       Swiss-Prot (mean ~365, median ~290, ~0.15% longer than 3072,
 *       a few giants up to 35,213), Swiss-Prot amino-acid composition,
 *       rare B/Z/X/U residues.  With --plant, every query gets 24 mutated
 *       copies (30-98% identity, indels, random flanks) so that searches
 *       have true hits, and the longest query gets 2 exact copies (high
 *       scores that overflow 16-bit arithmetic).  Default N = 572000.
 *
 *   synthdb dna --len N [--query-len Q] [--seed S] [--divergence D] > pair.fasta
 *       Two related DNA sequences for megabase pairwise mode: A has N bases;
 *       B is A (or, with --query-len, a random window of Q bases of A) with
 *       substitutions (rate D, default 0.02), short indels, a few inversions
 *       and unrelated insertions.
 *
 *   synthdb uniform --seqs N --len L [--seed S] > db.fasta
 *       N random protein sequences of exactly L residues (peak-throughput
 *       benchmark: no length imbalance).
 *
 * Build: cc -O2 -o synthdb synthdb.c -lm
 *
 * A copy of the project's benchmark generator of ../shared/bench.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double next_unit(void) { return (next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static double next_normal(void)
{
    double u1 = next_unit(), u2 = next_unit();
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Swiss-Prot amino-acid composition (percent), UniProtKB/Swiss-Prot release statistics. */
static const char AA[] = "ARNDCQEGHILKMFPSTWYV";
static const double AA_PCT[20] = {8.25, 5.53, 4.06, 5.45, 1.37, 3.93, 6.75, 7.07, 2.27, 5.96,
                                  9.66, 5.84, 2.42, 3.86, 4.70, 6.56, 5.34, 1.08, 2.92, 6.87};
static double aa_cum[20];

static void init_composition(void)
{
    double total = 0, acc = 0;
    for (int i = 0; i < 20; i++) total += AA_PCT[i];
    for (int i = 0; i < 20; i++) aa_cum[i] = (acc += AA_PCT[i] / total);
}

static char random_residue(void)
{
    double u = next_unit();
    if (u < 0.0002) return "BZXU"[next_u64() % 4]; /* rare ambiguity / selenocysteine codes */
    for (int i = 0; i < 20; i++)
        if (u < aa_cum[i]) return AA[i];
    return 'V';
}

static long protein_length(void)
{
    double mu, sigma;
    if (next_unit() < 0.93) { mu = log(270.0); sigma = 0.55; }
    else { mu = log(900.0); sigma = 0.60; }
    long len = lround(exp(mu + sigma * next_normal()));
    if (len < 2) len = 2;
    if (len > 35213) len = 35213;
    return len;
}

static void write_wrapped(const char *s, long n)
{
    for (long i = 0; i < n; i += 60) {
        fwrite(s + i, 1, (size_t)(n - i < 60 ? n - i : 60), stdout);
        putchar('\n');
    }
}

typedef struct { char *name; char *seq; long len; } record;

static record *read_fasta(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    record *r = NULL;
    int n = 0;
    char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        line[l] = 0;
        if (line[0] == '>') {
            r = realloc(r, sizeof *r * (size_t)(n + 1));
            r[n].name = strdup(line + 1);
            r[n].seq = NULL;
            r[n].len = 0;
            n++;
        } else if (n > 0 && l > 0) {
            record *c = &r[n - 1];
            c->seq = realloc(c->seq, (size_t)c->len + l + 1);
            memcpy(c->seq + c->len, line, l + 1);
            c->len += (long)l;
        }
    }
    fclose(f);
    *count = n;
    return r;
}

/* A mutated copy of src[from, from+len) into out; returns its length. */
static long mutate(const char *src, long len, double identity, char *out)
{
    long o = 0;
    for (long i = 0; i < len; i++) {
        double u = next_unit();
        if (u < (1.0 - identity) * 0.08) continue;                          /* deletion */
        if (u < (1.0 - identity) * 0.16) {                                  /* insertion */
            int k = 1 + (int)(next_u64() % 4);
            while (k--) out[o++] = random_residue();
        }
        out[o++] = next_unit() < identity ? src[i] : random_residue();
    }
    return o;
}

static void protein(long nseqs, const char *plant)
{
    init_composition();
    int nq = 0;
    record *q = plant ? read_fasta(plant, &nq) : NULL;
    long nplanted = (long)nq * 24 + (nq ? 2 : 0);
    long giants[] = {35213, 34350, 22152, 18141, 14507};
    long ngiants = (long)(sizeof giants / sizeof *giants);
    char *buf = malloc(200000);
    long longest = 0;
    for (int i = 1; i < nq; i++)
        if (q[i].len > q[longest].len) longest = i;
    for (long id = 0; id < nseqs; id++) {
        long len;
        printf(">sp|SYN%07ld|S%ld_SYNTH", id + 1, id + 1);
        if (id < nplanted && nq) {
            long qi = id < (long)nq * 24 ? id / 24 : longest;
            const record *src = &q[qi];
            if (id >= (long)nq * 24) {                     /* exact copy of the longest query */
                printf(" exact copy of %.40s\n", src->name);
                write_wrapped(src->seq, src->len);
                continue;
            }
            double identity = 0.30 + 0.68 * next_unit();
            long from = (long)(next_unit() * (double)src->len * 0.3);
            long span = src->len - from - (long)(next_unit() * (double)(src->len - from) * 0.3);
            long left = (long)(next_u64() % 200), right = (long)(next_u64() % 200);
            len = 0;
            for (long k = 0; k < left; k++) buf[len++] = random_residue();
            len += mutate(src->seq + from, span, identity, buf + len);
            for (long k = 0; k < right; k++) buf[len++] = random_residue();
            printf(" planted homolog of %.40s identity=%.2f\n", src->name, identity);
        } else {
            len = id - nplanted < ngiants ? giants[id - nplanted] : protein_length();
            for (long k = 0; k < len; k++) buf[k] = random_residue();
            printf(" Synthetic protein OS=Synthetic\n");
        }
        write_wrapped(buf, len);
    }
    free(buf);
}

static void uniform(long nseqs, long len)
{
    init_composition();
    char *buf = malloc((size_t)len);
    for (long id = 0; id < nseqs; id++) {
        for (long k = 0; k < len; k++) buf[k] = random_residue();
        printf(">U%07ld uniform length %ld\n", id + 1, len);
        write_wrapped(buf, len);
    }
    free(buf);
}

static char random_base(void) { return "ACGT"[next_u64() & 3]; }

static void dna(long len, long qlen, double divergence)
{
    char *a = malloc((size_t)len), *b = malloc((size_t)len * 2 + 1000000);
    for (long i = 0; i < len; i++) a[i] = random_base();
    long o = 0, from = 0, to = len;
    if (qlen > 0 && qlen < len) {
        from = (long)(next_u64() % (uint64_t)(len - qlen + 1));
        to = from + qlen;
    }
    for (long i = from; i < to; i++) {
        double u = next_unit();
        if (u < 2e-7) {                                   /* inversion of 1-20 kb */
            long span = 1000 + (long)(next_u64() % 19000);
            if (i + span > to) span = to - i;
            for (long k = span - 1; k >= 0; k--) {
                char c = a[i + k];
                b[o++] = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
            }
            i += span - 1;
            continue;
        }
        if (u < 4e-7) {                                   /* unrelated insertion of 1-10 kb */
            long span = 1000 + (long)(next_u64() % 9000);
            for (long k = 0; k < span; k++) b[o++] = random_base();
        }
        if (u < divergence * 0.05) continue;             /* short deletion */
        if (u < divergence * 0.10) {                     /* short insertion */
            int k = 1 + (int)(next_u64() % 6);
            while (k--) b[o++] = random_base();
        }
        b[o++] = next_unit() < divergence ? random_base() : a[i];
    }
    printf(">synthA length=%ld\n", len);
    write_wrapped(a, len);
    printf(">synthB derived from synthA[%ld,%ld) divergence=%.3f length=%ld\n", from, to, divergence, o);
    write_wrapped(b, o);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long nseqs = 572000, len = 0, qlen = 0;
    double divergence = 0.02;
    const char *plant = NULL;
    rng_state = 20261122;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seqs")) nseqs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--len")) len = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--query-len")) qlen = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed")) rng_state = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--plant")) plant = argv[i + 1];
        else if (!strcmp(argv[i], "--divergence")) divergence = atof(argv[i + 1]);
        else { fprintf(stderr, "synthdb: unknown option %s\n", argv[i]); return 2; }
    }
    if (!strcmp(mode, "protein")) protein(nseqs, plant);
    else if (!strcmp(mode, "uniform") && len > 0) uniform(nseqs, len);
    else if (!strcmp(mode, "dna") && len > 0) dna(len, qlen, divergence);
    else {
        fprintf(stderr, "usage: synthdb protein [--seqs N] [--seed S] [--plant q.fasta]\n"
                        "       synthdb uniform --seqs N --len L [--seed S]\n"
                        "       synthdb dna --len N [--query-len Q] [--seed S] [--divergence D]\n");
        return 2;
    }
    return 0;
}
