/* getopt_long and getopt_long_only as glibc (2.26 and later) behaves, written for the
 * environment model (cooptest_env.h, included with COOPTEST_IO): cooptest_io.h makes the
 * program's calls of them these. KLEE runs uclibc's getopt on symbolic argv for the same
 * reason: a call of the C library's getopt_long is a call nobody can follow, which may
 * permute argv and store through every longopts[i].flag, so every analysis had to forget
 * argv and all memory after it, and a path through option parsing was lost to the search.
 * Here the parse is code of the program's CFA: the native run and every analysis read the
 * same argv bytes through the same comparisons.
 *
 * What glibc's getopt does that a program can observe, all of it reproduced:
 *   - the result, optind, optarg and optopt (optopt is glibc's saved copy at every call,
 *     so it reads 0 after the first call that found no error, not '?');
 *   - the permutation of argv (non-options moved after the options, PERMUTE ordering,
 *     unless optstring starts with '+' or '-' or POSIXLY_CORRECT is set at the first call);
 *   - long options: exact names first, then unique abbreviations (several matches that
 *     agree in has_arg, flag and val are one, except for getopt_long_only), "=value" or
 *     the next element as the argument, *longind and *flag written;
 *   - "-W foo" as "--foo" where optstring has "W;";
 *   - the state kept between calls (the element being scanned, the non-options skipped),
 *     restarted when the program sets optind to 0;
 *   - the messages on stderr under opterr, unless optstring starts with ':'.
 * Plain getopt stays glibc's: <unistd.h> may make it __posix_getopt by an asm label,
 * which a macro cannot follow; a program that calls it as well as these gets two states
 * of the parse, and the provers block (cfa.proof_blockers.library_global). A program that
 * defines getopt_long itself has its definition renamed too: these are weak
 * (COOPTEST_LIBRARY), so the program's is the one its calls reach.
 *
 * Bytes are compared in loops of the model, not with strchr and strncmp, so that each
 * comparison of an argv byte is a branch the search can negate. */
#include <getopt.h>

#ifndef COOPTEST_LIBRARY /* included on its own (cooptest_env.h defines it) */
#define COOPTEST_LIBRARY __attribute__((weak))
#endif

enum { __COOPTEST_PERMUTE, __COOPTEST_REQUIRE_ORDER, __COOPTEST_RETURN_IN_ORDER };

/* What glibc keeps between calls (its getopt_data): the copies of optind, optarg and
 * optopt it writes back at the end of every call, the rest of the element whose short
 * options are being scanned, and argv[first_nonopt, last_nonopt), the non-options
 * skipped so far, to be moved after the options. */
struct __cooptest_getopt_data {
  int optind;
  int optopt;
  char *optarg;
  char *nextchar;
  int first_nonopt;
  int last_nonopt;
  int ordering;
  int initialized;
};

static struct __cooptest_getopt_data __cooptest_getopt_state;

/* strchr(s, c) as getopt asks it: the first c in s, its terminating NUL included. */
static const char *__cooptest_getopt_find(const char *s, char c) {
  for (;; s++) {
    if (*s == c)
      return s;
    if (*s == 0)
      return 0;
  }
}

/* Whether the n bytes at s, none of them NUL, begin name (strncmp(name, s, n) == 0). */
static int __cooptest_getopt_begins(const char *name, const char *s, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (name[i] != s[i])
      return 0;
  return 1;
}

/* An element that is no option: it does not start with '-', or is "-" alone. */
static int __cooptest_getopt_nonoption(char **argv, int i) {
  return argv[i][0] != '-' || argv[i][1] == 0;
}

/* Move the options argv[last_nonopt, optind) before the non-options
 * argv[first_nonopt, last_nonopt), each block keeping its order. */
static void __cooptest_getopt_exchange(char **argv, struct __cooptest_getopt_data *d) {
  int k, j;
  for (k = d->last_nonopt; k < d->optind; k++) {
    int to = d->first_nonopt + (k - d->last_nonopt);
    char *moved = argv[k];
    for (j = k; j > to; j--)
      argv[j] = argv[j - 1];
    argv[to] = moved;
  }
  d->first_nonopt += d->optind - d->last_nonopt;
  d->last_nonopt = d->optind;
}

/* The long option at d->nextchar (after prefix, "--", "-" or "-W "), argv[d->optind]
 * not yet passed. -1: no long option matches and getopt_long_only may read the element
 * as short options, nothing changed; otherwise the result of the call. */
static int __cooptest_getopt_long_option(int argc, char **argv, const char *optstring,
                                         const struct option *longopts, int *longind,
                                         int long_only, struct __cooptest_getopt_data *d,
                                         int print_errors, const char *prefix) {
  char *nameend = d->nextchar;
  int namelen, n, index = -1, ambiguous = 0;
  const struct option *p, *found = 0;
  while (*nameend && *nameend != '=')
    nameend++;
  namelen = (int)(nameend - d->nextchar);
  for (p = longopts, n = 0; p->name; p++, n++)
    if (__cooptest_getopt_begins(p->name, d->nextchar, namelen) && p->name[namelen] == 0) {
      found = p;
      index = n;
      break;
    }
  if (found == 0) {
    for (p = longopts, n = 0; p->name; p++, n++) {
      if (!__cooptest_getopt_begins(p->name, d->nextchar, namelen))
        continue;
      if (found == 0) {
        found = p;
        index = n;
      } else if (long_only || found->has_arg != p->has_arg || found->flag != p->flag
                 || found->val != p->val) {
        ambiguous = 1;
      }
    }
    if (ambiguous) {
      if (print_errors) {
        fprintf(stderr, "%s: option '%s%s' is ambiguous; possibilities:", argv[0], prefix,
                d->nextchar);
        for (p = longopts, n = 0; p->name; p++, n++)
          if (__cooptest_getopt_begins(p->name, d->nextchar, namelen)
              && (n == index || long_only || found->has_arg != p->has_arg
                  || found->flag != p->flag || found->val != p->val))
            fprintf(stderr, " '%s%s'", prefix, p->name);
        fprintf(stderr, "\n");
      }
      d->nextchar += namelen;
      while (*d->nextchar)
        d->nextchar++;
      d->optind++;
      d->optopt = 0;
      return '?';
    }
  }
  if (found == 0) {
    if (!long_only || argv[d->optind][1] == '-'
        || __cooptest_getopt_find(optstring, *d->nextchar) == 0) {
      if (print_errors)
        fprintf(stderr, "%s: unrecognized option '%s%s'\n", argv[0], prefix, d->nextchar);
      d->nextchar = 0;
      d->optind++;
      d->optopt = 0;
      return '?';
    }
    return -1;
  }
  d->optind++;
  d->nextchar = 0;
  if (*nameend) {
    if (!found->has_arg) {
      if (print_errors)
        fprintf(stderr, "%s: option '%s%s' doesn't allow an argument\n", argv[0], prefix,
                found->name);
      d->optopt = found->val;
      return '?';
    }
    d->optarg = nameend + 1;
  } else if (found->has_arg == 1) {
    if (d->optind >= argc) {
      if (print_errors)
        fprintf(stderr, "%s: option '%s%s' requires an argument\n", argv[0], prefix,
                found->name);
      d->optopt = found->val;
      return optstring[0] == ':' ? ':' : '?';
    }
    d->optarg = argv[d->optind++];
  }
  if (longind != 0)
    *longind = index;
  if (found->flag) {
    *found->flag = found->val;
    return 0;
  }
  return found->val;
}

/* The first call, or the first after the program set optind to 0: the ordering, and
 * optstring without its ordering character. */
static const char *__cooptest_getopt_start(const char *optstring,
                                           struct __cooptest_getopt_data *d) {
  if (d->optind == 0)
    d->optind = 1;
  d->first_nonopt = d->last_nonopt = d->optind;
  d->nextchar = 0;
  d->initialized = 1;
  if (optstring[0] == '-') {
    d->ordering = __COOPTEST_RETURN_IN_ORDER;
    return optstring + 1;
  }
  if (optstring[0] == '+') {
    d->ordering = __COOPTEST_REQUIRE_ORDER;
    return optstring + 1;
  }
  d->ordering = getenv("POSIXLY_CORRECT") != 0 ? __COOPTEST_REQUIRE_ORDER : __COOPTEST_PERMUTE;
  return optstring;
}

/* Go to the next element: the end of the options (-1), a non-option returned in order
 * (1), a long option's result; 0 where short options follow at d->nextchar, with
 * *result unset. */
static int __cooptest_getopt_element(int argc, char **argv, const char *optstring,
                                     const struct option *longopts, int *longind,
                                     int long_only, struct __cooptest_getopt_data *d,
                                     int print_errors, int *result) {
  if (d->last_nonopt > d->optind)  /* the program moved optind back */
    d->last_nonopt = d->optind;
  if (d->first_nonopt > d->optind)
    d->first_nonopt = d->optind;
  if (d->ordering == __COOPTEST_PERMUTE) {
    if (d->first_nonopt != d->last_nonopt && d->last_nonopt != d->optind)
      __cooptest_getopt_exchange(argv, d);
    else if (d->last_nonopt != d->optind)
      d->first_nonopt = d->optind;
    while (d->optind < argc && __cooptest_getopt_nonoption(argv, d->optind))
      d->optind++;
    d->last_nonopt = d->optind;
  }
  if (d->optind != argc && argv[d->optind][0] == '-' && argv[d->optind][1] == '-'
      && argv[d->optind][2] == 0) {  /* "--": the rest are non-options */
    d->optind++;
    if (d->first_nonopt != d->last_nonopt && d->last_nonopt != d->optind)
      __cooptest_getopt_exchange(argv, d);
    else if (d->first_nonopt == d->last_nonopt)
      d->first_nonopt = d->optind;
    d->last_nonopt = argc;
    d->optind = argc;
  }
  if (d->optind == argc) {
    if (d->first_nonopt != d->last_nonopt)
      d->optind = d->first_nonopt;
    *result = -1;
    return 1;
  }
  if (__cooptest_getopt_nonoption(argv, d->optind)) {
    if (d->ordering == __COOPTEST_REQUIRE_ORDER) {
      *result = -1;
      return 1;
    }
    d->optarg = argv[d->optind++];
    *result = 1;
    return 1;
  }
  if (longopts) {
    if (argv[d->optind][1] == '-') {
      d->nextchar = argv[d->optind] + 2;
      *result = __cooptest_getopt_long_option(argc, argv, optstring, longopts, longind,
                                              long_only, d, print_errors, "--");
      return 1;
    }
    /* getopt_long_only: "-f" is the short option f where optstring has it, any other
     * "-xyz" a long option first */
    if (long_only && (argv[d->optind][2]
                      || __cooptest_getopt_find(optstring, argv[d->optind][1]) == 0)) {
      d->nextchar = argv[d->optind] + 1;
      *result = __cooptest_getopt_long_option(argc, argv, optstring, longopts, longind,
                                              long_only, d, print_errors, "-");
      if (*result != -1)
        return 1;
    }
  }
  d->nextchar = argv[d->optind] + 1;
  return 0;
}

/* The short option at d->nextchar, and its argument. */
static int __cooptest_getopt_short(int argc, char **argv, const char *optstring,
                                   const struct option *longopts, int *longind,
                                   struct __cooptest_getopt_data *d, int print_errors) {
  char c = *d->nextchar++;
  const char *spec = __cooptest_getopt_find(optstring, c);
  if (*d->nextchar == 0)
    d->optind++;
  if (spec == 0 || c == ':' || c == ';') {
    if (print_errors)
      fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], c);
    d->optopt = c;
    return '?';
  }
  if (spec[0] == 'W' && spec[1] == ';' && longopts != 0) {  /* "-W foo" is "--foo" */
    if (*d->nextchar == 0) {  /* the name is the next element, which stays unpassed */
      if (d->optind == argc) {
        if (print_errors)
          fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv[0], c);
        d->optopt = c;
        return optstring[0] == ':' ? ':' : '?';
      }
      d->nextchar = argv[d->optind];
    }
    return __cooptest_getopt_long_option(argc, argv, optstring, longopts, longind, 0, d,
                                         print_errors, "-W ");
  }
  if (spec[1] != ':')
    return c;
  if (spec[2] == ':') {  /* an optional argument: the rest of this element only */
    if (*d->nextchar != 0) {
      d->optarg = d->nextchar;
      d->optind++;
    } else {
      d->optarg = 0;
    }
  } else if (*d->nextchar != 0) {  /* a required argument: the rest, or the next element */
    d->optarg = d->nextchar;
    d->optind++;
  } else if (d->optind == argc) {
    if (print_errors)
      fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv[0], c);
    d->optopt = c;
    c = optstring[0] == ':' ? ':' : '?';
  } else {
    d->optarg = argv[d->optind++];
  }
  d->nextchar = 0;
  return c;
}

/* One call: glibc's variables in, the parse, its copies out. */
static int __cooptest_getopt_call(int argc, char **argv, const char *optstring,
                                  const struct option *longopts, int *longind, int long_only) {
  struct __cooptest_getopt_data *d = &__cooptest_getopt_state;
  int print_errors = opterr, result;
  d->optind = optind;
  if (argc < 1) {
    result = -1;
  } else {
    d->optarg = 0;
    if (d->optind == 0 || !d->initialized)
      optstring = __cooptest_getopt_start(optstring, d);
    else if (optstring[0] == '-' || optstring[0] == '+')
      optstring++;
    if (optstring[0] == ':')
      print_errors = 0;
    int decided = (d->nextchar == 0 || *d->nextchar == 0)
                  && __cooptest_getopt_element(argc, argv, optstring, longopts, longind,
                                               long_only, d, print_errors, &result);
    if (!decided)
      result = __cooptest_getopt_short(argc, argv, optstring, longopts, longind, d,
                                       print_errors);
  }
  optind = d->optind;
  optarg = d->optarg;
  optopt = d->optopt;
  return result;
}

COOPTEST_LIBRARY int __cooptest_getopt_long(int argc, char *const *argv, const char *optstring,
                           const struct option *longopts, int *longind) {
  return __cooptest_getopt_call(argc, (char **)argv, optstring, longopts, longind, 0);
}

COOPTEST_LIBRARY int __cooptest_getopt_long_only(int argc, char *const *argv, const char *optstring,
                                const struct option *longopts, int *longind) {
  return __cooptest_getopt_call(argc, (char **)argv, optstring, longopts, longind, 1);
}
