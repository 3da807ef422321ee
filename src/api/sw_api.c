/* The library's own version (include/swsearch.h), which a program may
 * compare with the header's it was built with. */
#include "swsearch.h"

unsigned sw_version_number(void) { return SW_VERSION_NUMBER; }

const char *sw_version_string(void) { return SW_VERSION_STRING; }
