// inline-program - allocations made in code the compiler inlined, built
// as distributions build C++ (-O2 -g, no frame pointers): each Holder's
// std::vector is allocated in Holder's constructor, inlined into
// make_holder, inlined into main.  runtime.sh checks that memprof-report
// names the constructor as the site (not main, not std::vector's
// allocation plumbing) and shows the whole chain of inlined calls.
// Every vector is 64 KiB, sampled for sure at a sampling rate of 1 byte.
// The sizes are unsigned long and a Holder is 64 bytes on every
// architecture, so that the report is the same on 32-bit systems.
#include <memory>
#include <vector>

#define ALWAYS_INLINE __attribute__((always_inline)) inline

template <typename T> struct alignas(64) Holder {
	std::vector<T> items;
	ALWAYS_INLINE explicit Holder(unsigned long n) : items(n) {} // HOLDER
};

template <typename T>
ALWAYS_INLINE std::unique_ptr<Holder<T>> make_holder(unsigned long n)
{
	return std::unique_ptr<Holder<T>>(new Holder<T>(n)); // MAKE
}

static std::unique_ptr<Holder<int>> *volatile last_holder;

int main()
{
	std::unique_ptr<Holder<int>> kept[8];

	for (auto &holder : kept) {
		holder = make_holder<int>(16384); // MAIN
		last_holder = &holder;
	}
	return 0;
}
