/* Unit tests of the map of executable segments: code is found, data,
 * stack and heap are not, objects loaded after the map was built are
 * found. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "code_map.h"
#include "unwind.h"

Suite *test_suite(void);

static int some_data = 1;

static int is_code(uintptr_t address)
{
	return code_map_return_kind(address) != NOT_CODE;
}

static uintptr_t address_of(void (*fn)(void))
{
	return (uintptr_t)fn;
}

static void a_function(void)
{
}

START_TEST(code_is_found_and_data_is_not)
{
	int on_stack = 0;
	void *on_heap = malloc(16);

	ck_assert_int_eq(is_code(address_of(a_function) + 1), 1);
	ck_assert_int_eq(is_code((uintptr_t)&malloc + 1), 1);
	ck_assert_int_eq(is_code((uintptr_t)&some_data), 0);
	ck_assert_int_eq(is_code((uintptr_t)&on_stack), 0);
	ck_assert_int_eq(is_code((uintptr_t)on_heap), 0);
	ck_assert_int_eq(is_code(0x1000), 0);
	free(on_heap);
}
END_TEST

/* A return address never equals the start of a segment, but may equal
 * its end (a call as its last instruction). */
START_TEST(segment_bounds)
{
	uintptr_t start, end;

	ck_assert_int_eq(code_range_of(a_function, &start, &end), 0);
	ck_assert_int_eq(is_code(start), 0);
	ck_assert_int_eq(is_code(start + 1), 1);
	ck_assert_int_eq(is_code(end), 1);
}
END_TEST

START_TEST(objects_loaded_later_are_found)
{
	void *plugin;
	uintptr_t code;

	ck_assert_int_eq(is_code(address_of(a_function) + 1), 1);
	plugin = dlopen(CODE_MAP_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(plugin != NULL, "%s", dlerror());
	code = (uintptr_t)dlsym(plugin, "code_map_plugin_function") + 1;
	ck_assert_int_eq(is_code(code), 1);
	ck_assert_int_eq(dlclose(plugin), 0);
	/* Loaded again, maybe elsewhere. */
	plugin = dlopen(CODE_MAP_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(plugin != NULL, "%s", dlerror());
	code = (uintptr_t)dlsym(plugin, "code_map_plugin_function") + 1;
	ck_assert_int_eq(is_code(code), 1);
	ck_assert_int_eq(dlclose(plugin), 0);
}
END_TEST

static void *load(const char *path)
{
	void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	ck_assert_msg(plugin != NULL, "%s", dlerror());
	return plugin;
}

static enum code_kind kind_of_plugin(void *plugin)
{
	return code_map_return_kind(
		(uintptr_t)dlsym(plugin, "code_map_plugin_function") + 1);
}

/* Both loaded at once: an object loaded where an unloaded one was keeps
 * the kind of that one until the next rebuild. */
START_TEST(objects_that_keep_frame_pointers)
{
	void *without = load(CODE_MAP_PLUGIN), *with = load(CODE_MAP_PLUGIN_FP);

	ck_assert_int_eq(kind_of_plugin(without), CODE_WITHOUT_FRAME_POINTERS);
	ck_assert_int_eq(kind_of_plugin(with), CODE_WITH_FRAME_POINTERS);
	dlclose(with);
	dlclose(without);
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("code_map");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, code_is_found_and_data_is_not);
	tcase_add_test(tc, segment_bounds);
	tcase_add_test(tc, objects_loaded_later_are_found);
	tcase_add_test(tc, objects_that_keep_frame_pointers);
	suite_add_tcase(s, tc);
	return s;
}
