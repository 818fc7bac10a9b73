/* Included before each file of a program run in cooptest's environment model
 * (cooptest_env.h): the C library's input functions and ctype classifiers are the
 * model's, over the input bytes of stdin, the named files and the arguments, and so
 * are getopt_long's and getopt_long_only's parses of the arguments (cooptest_getopt.h)
 * and glibc's obstack functions (cooptest_obstack.h). */
#ifndef COOPTEST_IO_H
#define COOPTEST_IO_H
#define __NO_CTYPE 1
#define fopen __cooptest_fopen
#define fclose __cooptest_fclose
#define open __cooptest_open
#define close __cooptest_close
#define fgetc __cooptest_fgetc
#define getc __cooptest_fgetc
#define getchar __cooptest_getchar
#define ungetc __cooptest_ungetc
#define feof __cooptest_feof
#define fgets __cooptest_fgets
#define scanf __cooptest_scanf
#define fscanf __cooptest_fscanf
#define sscanf __cooptest_sscanf
#define fread __cooptest_fread
#define read __cooptest_read
#define strtol __cooptest_strtol
#define strtoul __cooptest_strtoul
#define atoi __cooptest_atoi
#define atol __cooptest_atol
#define isdigit __cooptest_isdigit
#define islower __cooptest_islower
#define isupper __cooptest_isupper
#define isalpha __cooptest_isalpha
#define isalnum __cooptest_isalnum
#define isxdigit __cooptest_isxdigit
#define isspace __cooptest_isspace
#define isblank __cooptest_isblank
#define iscntrl __cooptest_iscntrl
#define isprint __cooptest_isprint
#define isgraph __cooptest_isgraph
#define ispunct __cooptest_ispunct
#define tolower __cooptest_tolower
#define toupper __cooptest_toupper
#define getopt_long __cooptest_getopt_long
#define getopt_long_only __cooptest_getopt_long_only
#define _obstack_begin __cooptest_obstack_begin
#define _obstack_begin_1 __cooptest_obstack_begin_1
#define _obstack_newchunk __cooptest_obstack_newchunk
#define _obstack_free __cooptest_obstack_free
#define __obstack_free __cooptest_obstack_free
#define _obstack_allocated_p __cooptest_obstack_allocated_p
#define _obstack_memory_used __cooptest_obstack_memory_used
#endif
