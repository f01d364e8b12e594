// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * hotxx: C++ programs built as Debian builds them (plain -O2: no frame
 * pointers, no SFrame) whose hot code is in libstdc++ (and the C library
 * under it), for the installed-table tests.  One of, when built:
 *
 *   HOT_SORT  main -> sort_once -> std::sort of strings
 *   HOT_OSS   main -> format_once -> std::ostringstream
 *   HOT_UMAP  main -> map_once -> std::unordered_map<std::string, int>
 *
 * The chains' own functions are extern "C" (plain names); the templates
 * std:: instantiates in the program sit between them and the library.
 * Usage: hot-NAME [MILLISECONDS].
 */
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
#include "now.h"

static volatile unsigned long sink;

[[maybe_unused]] static std::string word(unsigned int s)
{
	std::string w = "uwind-installed-table-";

	for (int i = 0; i < 8; i++, s /= 7)
		w += (char)('a' + s % 26);
	return w;
}

#if defined(HOT_SORT)
extern "C" __attribute__((noinline)) void sort_once(void)
{
	std::vector<std::string> v;
	unsigned int s = (unsigned int)sink;

	for (int i = 0; i < 2000; i++) {
		s = s * 1103515245u + 12345u;
		v.push_back(word(s));
	}
	std::sort(v.begin(), v.end());
	sink += v[1000].size();
}
#define HOT_FN sort_once

#elif defined(HOT_OSS)
extern "C" __attribute__((noinline)) void format_once(void)
{
	std::ostringstream os;

	for (int i = 0; i < 2000; i++)
		os << i << ' ' << 3.25 * i << " uwind " << std::hex << i
		   << std::dec << '\n';
	sink += os.str().size();
}
#define HOT_FN format_once

#elif defined(HOT_UMAP)
extern "C" __attribute__((noinline)) void map_once(void)
{
	std::unordered_map<std::string, int> m;
	unsigned int s = (unsigned int)sink;

	for (int i = 0; i < 4000; i++) {
		s = s * 1103515245u + 12345u;
		m[word(s % 1500)] += i;
	}
	sink += m.size();
}
#define HOT_FN map_once
#endif

int main(int argc, char **argv)
{
	std::printf("%s: %lu calls\n", argv[0], run_for(argc, argv, HOT_FN));
	return 0;
}
