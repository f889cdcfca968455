## Fuzz targets: one for each parser a local user can feed.
##
## Each line of FUZZ_TARGETS is one target, "NAME:SOURCE[:SOURCE...]": its
## file tests/fuzz/fuzz-NAME.c defines LLVMFuzzerTestOneInput() and calls
## the parser, which is compiled from the SOURCEs (relative to the top
## source directory) with FUZZ_CPPFLAGS and linked with FUZZ_LIBS; its
## seed inputs are the files of tests/fuzz/corpus/NAME/.  Adding a target
## is one line here and those files.
##
## make check: tests/fuzz/corpus.sh runs each target once on every file of
## its corpus, through tests/fuzz/corpus-runner.c, built with the normal
## compiler (and the address and undefined-behaviour sanitizers where
## configure found them usable).
##
## make fuzz [FUZZ_SECONDS=60] [FUZZ_ONLY=NAME] [FUZZ_CC=clang]: builds each
## target (or NAME alone) with libFuzzer and the sanitizers and runs it for
## FUZZ_SECONDS, from its corpus; new inputs go to tests/fuzz/found/NAME/
## (copy those worth keeping into the corpus), inputs that crash or are
## slow to tests/fuzz/artifacts/NAME-*.

FUZZ_TARGETS =
FUZZ_TARGETS += reader:src/mlyze/mlyze-input.c:src/mlyze/mlyze-metadata.c:src/mlyze/mlyze-reader.c:src/mlyze/mlyze-symbols.c:src/mlyze/mlyze-tables.c:src/mlyze/mlyze-weights.c:src/mlyze/u64map.c
FUZZ_TARGETS += wrap-message:src/wrap/wrap-message.c:src/wrap/wrap-util.c
FUZZ_TARGETS += registry-entry:src/ctl/ctl-entry.c:src/ctl/ctl-text.c
FUZZ_TARGETS += serve-request:src/ctl/ctl-serve-request.c
FUZZ_TARGETS += web-config:src/ctl/ctl-web-config.c

FUZZ_CPPFLAGS = -DMLYZE_BUILDING_LIBRARY -I$(top_builddir) \
	-I$(top_srcdir)/include -I$(top_srcdir)/common \
	-I$(top_srcdir)/src/mlyze -I$(top_srcdir)/src/wrap \
	-I$(top_srcdir)/src/ctl -I$(top_srcdir)/src/report \
	$(JANSSON_CFLAGS) $(MHD_CFLAGS) $(YAML_CFLAGS) $(CRYPT_CFLAGS)
FUZZ_LIBS = $(JANSSON_LIBS) $(MHD_LIBS) $(YAML_LIBS) $(CRYPT_LIBS) -lm

FUZZ_SECONDS = 60
FUZZ_ONLY =
FUZZ_CC = clang
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_RUNNER_CFLAGS = -g -O1 $(FUZZ_SANITIZE_CFLAGS)

# fuzz_build COMPILER FLAGS OUTPUT_PREFIX [EXTRA_SOURCE]: compiles each
# target (FUZZ_ONLY alone when set) into OUTPUT_PREFIX-NAME (a shell
# fragment for the recipes below).
fuzz_build = set -e; \
	for entry in $(FUZZ_TARGETS); do \
	  name=$${entry%%:*}; \
	  if [ -n "$(FUZZ_ONLY)" ] && [ "$$name" != "$(FUZZ_ONLY)" ]; then \
	    continue; fi; \
	  sources=`echo "$$entry" | cut -d: -f2- | tr : '\n' | \
	    sed 's|^|$(srcdir)/|'`; \
	  echo "  FUZZ     $$name"; \
	  $$compiler $$flags $(FUZZ_CPPFLAGS) -o $$prefix-$$name $$extra \
	    $(srcdir)/tests/fuzz/fuzz-$$name.c $$sources $(FUZZ_LIBS); \
	done

# The corpus runners, built anew at each make check (the compiler's cache
# makes that cheap): their sources are in several directories.
check_DATA = tests/fuzz/runners.stamp
tests/fuzz/runners.stamp: FORCE
	@$(MKDIR_P) tests/fuzz
	@compiler='$(CC)'; flags='$(FUZZ_RUNNER_CFLAGS)'; \
	prefix=tests/fuzz/run; \
	extra=$(srcdir)/tests/fuzz/corpus-runner.c; $(fuzz_build)
	@touch $@
FORCE:
.PHONY: FORCE

TESTS += tests/fuzz/corpus.sh
AM_TESTS_ENVIRONMENT += FUZZ_TARGETS='$(FUZZ_TARGETS)'; export FUZZ_TARGETS;

fuzz:
	@$(MKDIR_P) tests/fuzz
	@compiler='$(FUZZ_CC)'; flags='$(FUZZ_CFLAGS)'; \
	prefix=tests/fuzz/fuzzer; extra=; $(fuzz_build)
	@set -e; for entry in $(FUZZ_TARGETS); do \
	  name=$${entry%%:*}; \
	  if [ -n "$(FUZZ_ONLY)" ] && [ "$$name" != "$(FUZZ_ONLY)" ]; then \
	    continue; fi; \
	  $(MKDIR_P) tests/fuzz/found/$$name tests/fuzz/artifacts; \
	  echo "  FUZZ     $$name for $(FUZZ_SECONDS) s"; \
	  tests/fuzz/fuzzer-$$name -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1 \
	    -artifact_prefix=tests/fuzz/artifacts/$$name- \
	    tests/fuzz/found/$$name \
	    $(srcdir)/tests/fuzz/corpus/$$name; \
	done
.PHONY: fuzz

EXTRA_DIST += tests/fuzz/corpus.sh tests/fuzz/corpus-runner.c \
	tests/fuzz/corpus
# Every target's file, whichever targets there are.
dist-hook: dist-fuzz
dist-fuzz:
	cp -p $(srcdir)/tests/fuzz/fuzz-*.c $(distdir)/tests/fuzz/
.PHONY: dist-fuzz
clean-local: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/run-* tests/fuzz/fuzzer-* tests/fuzz/found \
	  tests/fuzz/artifacts \
	  tests/fuzz/runners.stamp tests/fuzz/*.out
.PHONY: clean-fuzz
