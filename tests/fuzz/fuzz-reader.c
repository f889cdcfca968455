/* fuzz-reader - libFuzzer target for libmlyze: any input must be read to
 * its end or to an error, without a crash, a leak or undefined behaviour.
 * Run on its corpus by `make check`, and fuzzed by `make fuzz` (see
 * tests/fuzz/fuzz.mk). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "spprof/mlyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Look at everything an event points to, so the sanitizers see it. */
static size_t touch(const struct mlyze_event *ev)
{
	struct mlyze_weight w;
	size_t sum = 0;

	switch (ev->type) {
	case MLYZE_EVENT_ALLOC:
		mlyze_weigh(ev->alloc.size, ev->alloc.sampling_rate, &w);
		for (size_t i = 0; i < ev->alloc.stack->depth; i++) {
			const struct mlyze_frame *f = &ev->alloc.stack->frames[i];

			if (f->form == MLYZE_FORM_MODULE)
				sum += strlen(f->module->path);
			else if (f->form == MLYZE_FORM_PYTHON)
				sum += strlen(f->file->text) +
				       strlen(f->function->text);
		}
		return sum + (w.bytes > 0);
	case MLYZE_EVENT_MARKER:
		return strlen(ev->marker.name->text);
	case MLYZE_EVENT_MODULE:
		return strlen(ev->module.module->path);
	case MLYZE_EVENT_STRING:
		return strlen(ev->string.string->text);
	default:
		return 0;
	}
}

/* Every event, one by one (batch 0) or in batches of up to `batch`. */
static size_t read_events(mlyze_reader *r, int batch)
{
	struct mlyze_event events[8];
	size_t sum = 0;
	int n;

	if (batch == 0) {
		while (mlyze_next(r, &events[0]) > 0)
			sum += touch(&events[0]);
		return sum;
	}
	while ((n = mlyze_next_events(r, events, batch)) > 0)
		for (int i = 0; i < n; i++)
			sum += touch(&events[i]);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The smallest buffer makes every refill path run on small inputs. */
	struct mlyze_options options = { .buffer_size = 256 };
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	volatile size_t sink = 0;
	mlyze_reader *r;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size ||
	    lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return 0;
	}
	r = mlyze_open_fd(fd, "fuzz.mlyze", &options);
	if (r) {
		/* The last byte chooses: it varies among the seeds, where the
		 * first is always the magic's. */
		sink += read_events(r, size ? data[size - 1] % 9 : 0);
		for (size_t i = 0; i < mlyze_stack_count(r); i++)
			sink += mlyze_stack_at(r, i)->depth;
		if (mlyze_error(r))
			sink += strlen(mlyze_error(r));
		mlyze_close(r);
	}
	close(fd);
	return 0;
}
