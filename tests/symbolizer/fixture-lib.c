/* fixture-lib.c - the shared library the fixture program loads with dlopen.
 *
 * Contract: exports fixture_lib_function and the line its definition opens
 * on, so the symbolizer tests can check name and line inside a shared
 * object.
 */
int fixture_lib_function(int x);
unsigned fixture_lib_function_line(void);

/* Keep the marker and the definition on one line: the line of a function's
 * first address is the line of its opening brace. */
static const unsigned function_line = __LINE__; __attribute__((noinline)) int fixture_lib_function(int x) { return x * 7 + 1; }

unsigned fixture_lib_function_line(void)
{
	return function_line;
}
