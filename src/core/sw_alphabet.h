/* Residue alphabets: letters to the small integer codes that every engine,
 * matrix and database uses. Tables are read-only constants. */
#ifndef SW_ALPHABET_H
#define SW_ALPHABET_H

#include <stdint.h>

#include "swsearch.h" /* sw_alphabet_kind */

#ifdef __cplusplus
extern "C" {
#endif

/* Codes are below this bound in every alphabet, so a score table of
 * SW_CODE_LIMIT x SW_CODE_LIMIT covers any pair (and pads SIMD profiles). */
#define SW_CODE_LIMIT 32
#define SW_CODE_INVALID 0xFF

/* Protein codes follow the NCBI matrix order, then the residues that NCBI
 * matrices lack: "ARNDCQEGHILKMFPSTWYVBJZX*UO". Codes 0-19 are the 20
 * standard amino acids. */
#define SW_PROTEIN_CODES 27
#define SW_PROTEIN_X 23

/* DNA codes: A C G T, and one code for N and every other IUPAC ambiguity
 * code (scored as a mismatch against everything). */
#define SW_DNA_CODES 5
#define SW_DNA_N 4

typedef struct sw_alphabet {
    sw_alphabet_kind kind;
    int size;               /* number of codes */
    const char *letters;    /* letters[code] is the canonical upper-case letter */
    uint8_t encode[256];    /* byte -> code, SW_CODE_INVALID where not a residue */
} sw_alphabet;

const sw_alphabet *sw_alphabet_protein(void);
const sw_alphabet *sw_alphabet_dna(void);

/* Code of `c` (either case), or SW_CODE_INVALID. */
static inline uint8_t sw_alphabet_encode(const sw_alphabet *a, unsigned char c)
{
    return a->encode[c];
}

static inline char sw_alphabet_decode(const sw_alphabet *a, uint8_t code)
{
    return code < a->size ? a->letters[code] : '?';
}

#ifdef __cplusplus
}
#endif

#endif
