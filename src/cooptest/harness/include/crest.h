/* CREST's symbolic inputs (github.com/jburnim/crest, include/crest.h), for programs
 * written for CREST to run under cooptest unchanged: each CREST_<type>(x) makes the
 * variable x a fresh input of that type, read as a Test-Comp nondet value. */
#ifndef COOPTEST_CREST_H
#define COOPTEST_CREST_H

char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
short __VERIFIER_nondet_short(void);
unsigned short __VERIFIER_nondet_ushort(void);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);

#define CREST_char(x) ((x) = __VERIFIER_nondet_char())
#define CREST_unsigned_char(x) ((x) = __VERIFIER_nondet_uchar())
#define CREST_short(x) ((x) = __VERIFIER_nondet_short())
#define CREST_unsigned_short(x) ((x) = __VERIFIER_nondet_ushort())
#define CREST_int(x) ((x) = __VERIFIER_nondet_int())
#define CREST_unsigned_int(x) ((x) = __VERIFIER_nondet_uint())

#endif
