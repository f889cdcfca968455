// edge-cases-cxx.cc - C++ allocation through the runtime.
//
// operator new and delete in their plain, array, aligned and nothrow
// forms, growing std::vector and std::string, and a node container, must
// behave as without the runtime: aligned blocks, contents kept,
// std::bad_alloc (or nullptr for nothrow) when the size is impossible.
// With --all-sampled (SPPROF_SAMPLING_RATE=1), blocks from new[] and
// aligned new must be sampled too, from the program's first allocation on.
#include "config.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "runtime-api.h"

namespace {

int failures;
bool all_sampled;
runtime_api api;

void check(bool ok, int line, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "edge-cases-cxx.cc:%d: %s\n", line, what);
		failures++;
	}
}

#define CHECK(cond) check((cond), __LINE__, #cond)

// Sizes the compiler cannot see, so it keeps the calls as written.
std::size_t opaque_size(std::size_t n)
{
	volatile std::size_t v = n;

	return v;
}

bool is_aligned(const void *p, std::size_t alignment)
{
	return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

bool sampled_if_required(const void *block, std::size_t min_size)
{
	memprof_sample s;

	if (!all_sampled)
		return true;
	return runtime_api_find_sample(
		       &api, reinterpret_cast<std::uintptr_t>(block), &s) &&
	       s.size >= min_size;
}

struct alignas(4096) Page {
	unsigned char bytes[10000];
};

struct alignas(64) Line {
	std::uint64_t words[3];
};

// The C++ library allocates before the runtime has read its settings;
// the rate set then must still hold from the program's first allocation.
void test_first_allocation()
{
	char *first = new char[opaque_size(100)];
	CHECK(sampled_if_required(first, 100));
	delete[] first;
}

void test_plain_and_array()
{
	int *one = new int(42);
	CHECK(*one == 42 && is_aligned(one, alignof(int)));
	delete one;

	const std::size_t n = opaque_size(100000);
	int *many = new int[n];
	for (std::size_t i = 0; i < n; i++)
		many[i] = static_cast<int>(i);
	CHECK(sampled_if_required(many, n * sizeof(int)));
	bool kept = true;
	for (std::size_t i = 0; i < n; i++)
		kept = kept && many[i] == static_cast<int>(i);
	CHECK(kept);
	delete[] many;

	char *text = new char[opaque_size(5000)];
	std::memset(text, 'x', 5000);
	CHECK(sampled_if_required(text, 5000));
	delete[] text;
}

void test_aligned()
{
	Page *page = new Page;
	CHECK(is_aligned(page, 4096));
	CHECK(sampled_if_required(page, sizeof(Page)));
	std::memset(page->bytes, 1, sizeof(page->bytes));
	delete page;

	Page *pages = new Page[opaque_size(3)];
	CHECK(is_aligned(pages, 4096) && is_aligned(&pages[2], 4096));
	std::memset(pages, 2, 3 * sizeof(Page));
	delete[] pages;

	for (std::size_t align = 16; align <= 65536; align *= 4) {
		std::align_val_t alignment{ align };
		void *p = ::operator new(opaque_size(100), alignment);
		CHECK(is_aligned(p, align));
		std::memset(p, 3, 100);
		::operator delete(p, alignment);
	}

	std::vector<Line> lines;
	for (int i = 0; i < 1000; i++) {
		lines.push_back(Line{ { std::uint64_t(i), 0, 0 } });
		CHECK(is_aligned(lines.data(), 64));
	}
	CHECK(lines[999].words[0] == 999);
}

// Three quarters of the address space: no system has a hole that large
// (half of a 32-bit one may be free).
#define IMPOSSIBLE_SIZE (SIZE_MAX / 4 * 3)

void test_impossible_sizes()
{
	bool threw = false;

	try {
		void *p = ::operator new(opaque_size(IMPOSSIBLE_SIZE));
		::operator delete(p);
	} catch (const std::bad_alloc &) {
		threw = true;
	}
	CHECK(threw);
	CHECK(::operator new(opaque_size(IMPOSSIBLE_SIZE), std::nothrow) ==
	      nullptr);
	CHECK(::operator new[](opaque_size(IMPOSSIBLE_SIZE), std::nothrow) ==
	      nullptr);
}

void test_containers()
{
	std::vector<int> numbers;
	for (int i = 0; i < (1 << 20); i++)
		numbers.push_back(i);
	bool kept = true;
	for (int i = 0; i < (1 << 20); i++)
		kept = kept && numbers[static_cast<std::size_t>(i)] == i;
	CHECK(kept);
	numbers.resize(10);
	numbers.shrink_to_fit();
	CHECK(numbers.size() == 10 && numbers[9] == 9);

	std::string text;
	for (int i = 0; i < (1 << 20); i++)
		text += static_cast<char>('a' + i % 26);
	kept = text.size() == (1 << 20);
	for (std::size_t i = 0; i < text.size(); i++)
		kept = kept && text[i] == static_cast<char>('a' + i % 26);
	CHECK(kept);

	std::map<int, std::string> names;
	for (int i = 0; i < 10000; i++)
		names[i] = std::to_string(i) + " is a number long enough to "
					       "need the heap";
	CHECK(names.size() == 10000 && names[1234].rfind("1234 ", 0) == 0);
	for (int i = 0; i < 10000; i += 2)
		names.erase(i);
	CHECK(names.size() == 5000 && names.count(4321) == 1);
}

} // namespace

int main(int argc, char **argv)
{
	all_sampled = argc > 1 && !std::strcmp(argv[1], "--all-sampled");
	if (all_sampled && runtime_api_load(&api) < 0) {
		std::fputs("edge-cases-cxx: --all-sampled needs the runtime\n",
			   stderr);
		return 2;
	}
	test_first_allocation();
	test_plain_and_array();
	test_aligned();
	test_impossible_sizes();
	test_containers();
	std::printf("edge-cases-cxx: %d failures\n", failures);
	return failures ? 1 : 0;
}
