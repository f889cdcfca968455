// attach-cxx - a C++ program built as distributions build it, for
// attach.sh.  Usage: attach-cxx GO_FILE STOP_FILE
// Fills a map of strings before and after GO_FILE appears (the runtime is
// attached meanwhile) from grow_catalogue(), drops the early entries, and
// says how many entries it holds and "done" when STOP_FILE exists.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

bool exists(const char *file) { return access(file, F_OK) == 0; }

__attribute__((noinline)) void grow_catalogue(std::map<int, std::string> &m,
					     int first, int count)
{
	for (int i = first; i < first + count; i++)
		m[i] = std::string(200 + i % 4000, 'a' + i % 26);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	std::map<int, std::string> catalogue;
	grow_catalogue(catalogue, 0, 20000);
	std::printf("ready\n");
	std::fflush(stdout);
	int next = 20000;
	while (!exists(argv[1])) {
		catalogue.erase(next - 20000);
		grow_catalogue(catalogue, next++, 1);
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	for (int i = next - 20000; i < next; i++)
		catalogue.erase(i); // the early entries
	grow_catalogue(catalogue, next, 20000);
	while (!exists(argv[2]))
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	std::printf("holding %zu entries\ndone\n", catalogue.size());
	return 0;
}
