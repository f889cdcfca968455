/* code-map-plugin.c - code that test-code-map loads and unloads, built
 * with frame pointers and without: a few functions that call others, as
 * most functions of a library do. */
int code_map_plugin_function(int x);

static volatile int sink;

__attribute__((noipa)) static void add(const int *values, int n)
{
	for (int i = 0; i < n; i++)
		sink += values[i];
}

__attribute__((noipa)) static void add_twice(const int *values, int n)
{
	add(values, n);
	add(values, n);
}

__attribute__((noipa)) static void add_squares(int x)
{
	int squares[16];

	for (int i = 0; i < 16; i++)
		squares[i] = (x + i) * (x + i);
	add_twice(squares, 16);
}

int code_map_plugin_function(int x)
{
	int counts[16] = { x };

	add_twice(counts, 16);
	add_squares(x);
	return sink;
}
