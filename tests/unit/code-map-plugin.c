/* code-map-plugin.c - code that test-code-map loads and unloads. */
int code_map_plugin_function(int x);

int code_map_plugin_function(int x)
{
	return x + 1;
}
