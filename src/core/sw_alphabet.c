/* The protein and DNA alphabets as constant tables. */
#include "sw_alphabet.h"

#define INV SW_CODE_INVALID
/* Every byte that is not listed maps to SW_CODE_INVALID. */
#define ROW16 INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, INV

static const sw_alphabet protein = {
    SW_ALPHABET_PROTEIN,
    SW_PROTEIN_CODES,
    "ARNDCQEGHILKMFPSTWYVBJZX*UO",
    {
        ROW16, ROW16,
        /* 0x20 ' ' .. 0x2F: only '*' (0x2A) */
        INV, INV, INV, INV, INV, INV, INV, INV, INV, INV, 24, INV, INV, INV, INV, INV,
        ROW16, /* 0x30 digits and punctuation */
        /* 0x40 '@' A B C D E F G H I J K L M N O */
        INV, 0, 20, 4, 3, 6, 13, 7, 8, 9, 21, 11, 10, 12, 2, 26,
        /* 0x50 P Q R S T U V W X Y Z [ \ ] ^ _ */
        14, 5, 1, 15, 16, 25, 19, 17, 23, 18, 22, INV, INV, INV, INV, INV,
        /* 0x60 ` a b c ... */
        INV, 0, 20, 4, 3, 6, 13, 7, 8, 9, 21, 11, 10, 12, 2, 26,
        14, 5, 1, 15, 16, 25, 19, 17, 23, 18, 22, INV, INV, INV, INV, INV,
        ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16,
    },
};

#define N_ SW_DNA_N
static const sw_alphabet dna = {
    SW_ALPHABET_DNA,
    SW_DNA_CODES,
    "ACGTN",
    {
        ROW16, ROW16, ROW16, ROW16,
        /* 0x40 '@' A B C D E F G H I J K L M N O */
        INV, 0, N_, 1, N_, INV, INV, 2, N_, INV, INV, N_, INV, N_, N_, INV,
        /* 0x50 P Q R S T U V W X Y Z */
        INV, INV, N_, N_, 3, INV, N_, N_, INV, N_, INV, INV, INV, INV, INV, INV,
        INV, 0, N_, 1, N_, INV, INV, 2, N_, INV, INV, N_, INV, N_, N_, INV,
        INV, INV, N_, N_, 3, INV, N_, N_, INV, N_, INV, INV, INV, INV, INV, INV,
        ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16, ROW16,
    },
};

const sw_alphabet *sw_alphabet_protein(void) { return &protein; }
const sw_alphabet *sw_alphabet_dna(void) { return &dna; }
