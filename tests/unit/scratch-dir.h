/* scratch-dir.h - a directory of its own for the files of a unit test.
 *
 * Contract: scratch_dir_make(dir) creates a new directory from dir, a
 * template ending in "XXXXXX" that it fills in (failing the test when it
 * cannot).  scratch_dir_remove(dir) removes the directory with the files
 * in it, and makes dir a template again, so that the next test can make a
 * directory of its own even when all tests run in one process
 * (CK_FORK=no).
 */
#ifndef SPPROF_TESTS_SCRATCH_DIR_H
#define SPPROF_TESTS_SCRATCH_DIR_H

void scratch_dir_make(char *dir);
void scratch_dir_remove(char *dir);

#endif /* SPPROF_TESTS_SCRATCH_DIR_H */
