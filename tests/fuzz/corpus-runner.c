/* corpus-runner.c - runs a fuzz target once on each file named, or on
 * each file of each directory named, the way libFuzzer would feed it:
 * the bytes in a buffer of their exact size, so that the address
 * sanitizer catches a read past them.  Linked with one tests/fuzz/fuzz-*.c
 * (see tests/fuzz/fuzz.mk); exits 0 after every input returned, 1 when
 * an input cannot be read.  A crash or a sanitizer's report ends it. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds the file at PATH to the target: 0, or 1 when it cannot be read. */
static int run_file(const char *path)
{
	FILE *file = fopen(path, "rb");
	struct stat status;
	uint8_t *data;
	size_t size;

	if (file == NULL || fstat(fileno(file), &status) != 0) {
		fprintf(stderr, "corpus-runner: %s: %s\n", path, strerror(errno));
		if (file != NULL)
			fclose(file);
		return 1;
	}
	size = (size_t)status.st_size;
	data = malloc(size ? size : 1);
	if (data == NULL || fread(data, 1, size, file) != size) {
		fprintf(stderr, "corpus-runner: %s: cannot read it\n", path);
		free(data);
		fclose(file);
		return 1;
	}
	fclose(file);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

/* Feeds every file of directory PATH, or PATH itself; *RUN counts them. */
static int run_path(const char *path, size_t *run)
{
	DIR *directory = opendir(path);
	struct dirent *entry;
	int failed = 0;

	if (directory == NULL) {
		(*run)++;
		return run_file(path);
	}
	while ((entry = readdir(directory)) != NULL) {
		char inside[4096];

		if (entry->d_name[0] == '.')
			continue;
		snprintf(inside, sizeof inside, "%s/%s", path, entry->d_name);
		(*run)++;
		failed |= run_file(inside);
	}
	closedir(directory);
	return failed;
}

int main(int argc, char **argv)
{
	size_t run = 0;
	int failed = 0;

	for (int i = 1; i < argc; i++)
		failed |= run_path(argv[i], &run);
	printf("%zu inputs run\n", run);
	return failed;
}
