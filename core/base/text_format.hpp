// Text as people read and write it: numbers in tables (times with their unit, sizes compactly),
// size lists as --sizes takes them, lists, printf's text, and text from outside made printable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

std::string format_seconds(double seconds);  // "12.30 us", "4.560 ms", "1.200 s"
std::string format_size(uint64_t size);      // "4096", "1e+06", "2.5e+08"
std::string format_memory(double bytes);     // "512 KiB", "1.5 MiB", "2.25 GiB"
std::string trim(std::string_view text);     // without leading and trailing spaces and tabs
// Splits "a,b,c" into its trimmed items, those left empty dropped unless `keep_empty`.
std::vector<std::string> split_list(const std::string &text, char separator = ',', bool keep_empty = false);
// The items with `separator` between them: join({"a", "b"}, ",") is "a,b".
std::string join(const std::vector<std::string> &items, const std::string &separator);
// `word` as one word of a shell command: as it is where a shell reads nothing in it, else quoted.
std::string shell_word(const std::string &word);
std::string shell_command(const std::vector<std::string> &words);  // each a shell_word, spaced
// printf's text for `format` and its arguments, of any length.
std::string format_text(const char *format, ...) __attribute__((format(printf, 1, 2)));
// `text` with each byte that is not valid UTF-8, and each control character (a newline, an
// escape sequence's ESC), as the four characters "\xNN": for text from outside (a plugin's
// strings, paths, environment values) that becomes JSON, a table cell or a one-line message.
std::string printable_text(std::string_view text);

// Parses a comma-separated list of sizes and ranges, in the order written, duplicates kept:
//   10,100,1e6         whole numbers, scientific notation allowed when it is whole
//   2^10               a power
//   2^10..2^20         every power of two from 2^10 to 2^20 (a range's default step is *2)
//   10..1e6:*10        a geometric range with factor 10
//   100..1000:+100     an arithmetic range
// Throws std::invalid_argument with a one-line message naming the offending item.
std::vector<uint64_t> parse_sizes(std::string_view text);

}  // namespace gpubench
