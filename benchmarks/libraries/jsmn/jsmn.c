/* The library as one translation unit: jsmn.h holds its code (JSMN_API extern). */
#include "jsmn.h"
