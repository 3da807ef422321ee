/* A program on the swsearch library: builds a database from a FASTA file,
 * searches it with the queries of another and prints each hit as
 * `swsearch search --outfmt "6 qseqid sseqid score length nident qstart
 * qend sstart send"` would.
 * Usage: search DB_FASTA DB_PATH QUERY_FASTA */
#include <stdio.h>
#include <swsearch.h>

static void note(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "search: %s\n", message);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: search DB_FASTA DB_PATH QUERY_FASTA\n");
        return 2;
    }
    if (sw_version_number() / 100 != SW_VERSION_NUMBER / 100) {
        fprintf(stderr, "search: built with swsearch %s, running with %s\n", SW_VERSION_STRING, sw_version_string());
        return 1;
    }
    sw_error err = {0};
    sw_db *db = NULL;
    sw_search *s = NULL;
    sw_hits *hits = NULL;
    int rc = sw_db_make(argv[1], argv[2], NULL, NULL, NULL, &err);
    if (rc == SW_OK) rc = sw_db_open(argv[2], &db, &err);
    if (rc == SW_OK) rc = sw_search_create(&s, &err);
    if (rc == SW_OK) rc = sw_search_set_messages(s, note, NULL, &err);
    if (rc == SW_OK) rc = sw_search_run_fasta(s, db, argv[3], &hits, &err);
    for (size_t q = 0; rc == SW_OK && q < sw_hits_num_queries(hits); q++) {
        for (size_t i = 0; i < sw_hits_count(hits, q); i++) {
            sw_hit_info h;
            if ((rc = sw_hits_get(hits, q, i, &h, &err))) break;
            printf("%s\t%s\t%d\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\n", h.qseqid, h.sseqid, h.score, h.length, h.nident,
                   h.qstart, h.qend, h.sstart, h.send);
        }
    }
    if (rc) fprintf(stderr, "search: %s\n", err.message[0] ? err.message : sw_strerror(rc));
    sw_hits_free(hits);
    sw_search_free(s);
    sw_db_close(db);
    return rc ? 1 : 0;
}
