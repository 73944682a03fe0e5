/* fixture.h -- for the C tests: the text of tests/fixtures/NAME (PTX the specs share, or too
** long to paste as a string) in this tree: under $PTXLUA_ROOT, as ctest sets it, else under the
** source tree the build was configured from. */
#ifndef PTXLUA_TEST_FIXTURE_H
#define PTXLUA_TEST_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>

/* the file's bytes, NUL-terminated (the caller frees); NULL, with a message, when it cannot be
** read */
static char *fixture_text(const char *name) {
  const char *root = getenv("PTXLUA_ROOT");
#ifdef PTXLUA_SOURCE_ROOT
  if (!root || !*root) root = PTXLUA_SOURCE_ROOT;
#endif
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/fixtures/%s", root ? root : ".", name);
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) text = malloc((size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  if (text) text[n] = 0;
  if (f) fclose(f);
  if (!text) fprintf(stderr, "cannot read the fixture %s\n", path);
  return text;
}
#endif
