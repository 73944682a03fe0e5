/* check.h -- the checks of the C tests (tests/c/test_*.c), one definition for all of them. Each
** check counts itself in `checks`; one that fails counts in `failures`, reports
**   FILE:LINE: check failed: EXPR
** on stderr (with what it compared, for the checks of strings), and the test goes on. main ends
** with `return check_done("test_x");`: the count on stdout, exit status 1 if any check failed.
**   CHECK(cond)                 cond holds
**   CHECK(cond, fmt, ...)       the same, with a printf-style note after the expression
**   CHECKMSG(cond, e)           the same, with engine e's last message (ptxlua.h)
**   CHECK_ERR(call)             call returns an error code (not PTXLUA_OK)
**   CHECK_MSG(e, part)          engine e's last message contains part
**   CHECK_HAS(got, part)        the string got contains part
**   CHECK_STR(got, want)        the string got is want
**   CHECK_TEXT(got, want, what) the text got is want; else the first byte where they differ
** A test that fails outside a check (an engine that does not open) adds to `failures` itself. */
#ifndef PTXLUA_TEST_CHECK_H
#define PTXLUA_TEST_CHECK_H
#include <stdio.h>
#include <string.h>

static int failures, checks;

/* the report of a failed check, and the count */
#define CHECK_FAILED_(what) \
  (failures++, fprintf(stderr, "%s:%d: check failed: %s", __FILE__, __LINE__, what))

#define CHECK_PLAIN_(cond)  \
  do {                      \
    checks++;               \
    if (!(cond)) {          \
      CHECK_FAILED_(#cond); \
      fputc('\n', stderr);  \
    }                       \
  } while (0)
#define CHECK_NOTE_(cond, ...)      \
  do {                              \
    checks++;                       \
    if (!(cond)) {                  \
      CHECK_FAILED_(#cond);         \
      fputs(": ", stderr);          \
      fprintf(stderr, __VA_ARGS__); \
      fputc('\n', stderr);          \
    }                               \
  } while (0)
/* CHECK(cond) or CHECK(cond, fmt, ...): the form is picked by the number of arguments (up to 16) */
#define CHECK_PICK_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, which, \
                    ...)                                                                          \
  which
#define CHECK(...)                                                                          \
  CHECK_PICK_(__VA_ARGS__, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, \
              CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, \
              CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_NOTE_, CHECK_PLAIN_, unused)     \
  (__VA_ARGS__)

#define CHECKMSG(cond, e)                           \
  do {                                              \
    checks++;                                       \
    if (!(cond)) {                                  \
      CHECK_FAILED_(#cond);                         \
      fprintf(stderr, " (%s)\n", ptxlua_errmsg(e)); \
    }                                               \
  } while (0)

#define CHECK_ERR(call)              \
  do {                               \
    int rc_ = (call);                \
    checks++;                        \
    if (rc_ == PTXLUA_OK) {          \
      CHECK_FAILED_(#call);          \
      fputs(" succeeded\n", stderr); \
    }                                \
  } while (0)

#define CHECK_MSG(e, part)                                                        \
  do {                                                                            \
    const char *m_ = ptxlua_errmsg(e), *p_ = (part);                              \
    checks++;                                                                     \
    if (!m_ || !strstr(m_, p_)) {                                                 \
      CHECK_FAILED_("CHECK_MSG(" #e ", " #part ")");                              \
      fprintf(stderr, ": message \"%s\" lacks \"%s\"\n", m_ ? m_ : "(null)", p_); \
    }                                                                             \
  } while (0)

#define CHECK_HAS(got, part)                                                         \
  do {                                                                               \
    const char *g_ = (got), *p_ = (part);                                            \
    checks++;                                                                        \
    if (!g_ || !strstr(g_, p_)) {                                                    \
      CHECK_FAILED_("CHECK_HAS(" #got ", " #part ")");                               \
      fprintf(stderr, ": \"%s\" does not contain \"%s\"\n", g_ ? g_ : "(null)", p_); \
    }                                                                                \
  } while (0)

#define CHECK_STR(got, want)                                                  \
  do {                                                                        \
    const char *g_ = (got), *w_ = (want);                                     \
    checks++;                                                                 \
    if (!g_ || strcmp(g_, w_) != 0) {                                         \
      CHECK_FAILED_("CHECK_STR(" #got ", " #want ")");                        \
      fprintf(stderr, ": got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", w_); \
    }                                                                         \
  } while (0)

/* a long text: where it first differs, 60 bytes before it and up to 120 from there */
static inline void check_text_(const char *got, const char *want, const char *what,
                               const char *file, int line) {
  checks++;
  if (got && strcmp(got, want) == 0) return;
  failures++;
  fprintf(stderr, "%s:%d: check failed: %s differs\n", file, line, what);
  if (!got) {
    fprintf(stderr, "  (no text)\n");
    return;
  }
  size_t i = 0;
  while (got[i] && got[i] == want[i]) i++;
  size_t from = i > 60 ? i - 60 : 0;
  fprintf(stderr, "  first difference at byte %zu\n  got:  \"%.120s\"\n  want: \"%.120s\"\n", i,
          got + from, want + from);
}
#define CHECK_TEXT(got, want, what) check_text_(got, want, what, __FILE__, __LINE__)

/* the end of main: how many checks ran and failed; the exit status */
static inline int check_done(const char *test) {
  if (failures) {
    fprintf(stderr, "%s: %d of %d checks failed\n", test, failures, checks);
    return 1;
  }
  printf("%s: %d checks passed\n", test, checks);
  return 0;
}
#endif
