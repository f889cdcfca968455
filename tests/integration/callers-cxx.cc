// callers-cxx.cc - C++ allocation sites inside the standard library
// (std::vector, std::map, std::string through a template), built without
// frame pointers; native-stacks.sh checks their callers:
//   grow_series < build_series < main
//   Index<int>::add < fill_index<int> < main
#include "config.h"

#include <map>
#include <string>
#include <vector>

#include "callers.h"

template <typename Key> struct Index {
	std::map<Key, std::vector<std::string>> entries;

	KEEP_FRAME void add(const Key &key, int count)
	{
		auto &names = entries[key];

		for (int i = 0; i < count; i++)
			names.push_back(std::string(SITE_BYTES / 64, 'x'));
		AFTER_CALL();
	}
};

template <typename Key> KEEP_FRAME static void fill_index(Index<Key> &index)
{
	for (int i = 0; i < 64; i++)
		index.add(Key(i), 4);
	AFTER_CALL();
}

KEEP_FRAME static void grow_series(std::vector<double> &series)
{
	series.resize(SITE_BYTES / sizeof(double));
	AFTER_CALL();
}

KEEP_FRAME static std::vector<double> *build_series()
{
	auto *series = new std::vector<double>();

	grow_series(*series);
	AFTER_CALL();
	return series;
}

static volatile size_t sink;

int main()
{
	Index<int> index;
	std::vector<double> *series = build_series();

	fill_index(index);
	sink = series->size() + index.entries.size();
	delete series;
	return 0;
}
