#include "text_format.hpp"

#include <catch2/catch.hpp>

#include <string>

using gpubench::format_text;
using gpubench::shell_command;
using gpubench::shell_word;

TEST_CASE("format_text: printf's text, of any length", "[text]") {
    CHECK(format_text("%+.0f%%", 12.4) == "+12%");
    CHECK(format_text("%5u %s", 7u, "x") == "    7 x");
    CHECK(format_text("%s", "").empty());
    const std::string long_text(5000, 'a');  // beyond any fixed buffer: nothing cut
    CHECK(format_text("<%s>", long_text.c_str()) == "<" + long_text + ">");
}

TEST_CASE("shell_word and shell_command: a command line as one would type it", "[text]") {
    CHECK(shell_word("runner") == "runner");
    CHECK(shell_word("--param=dtype=float32,float64") == "--param=dtype=float32,float64");
    CHECK(shell_word("") == "''");
    CHECK(shell_word("matmul_*") == "'matmul_*'");
    CHECK(shell_word("it's") == "'it'\\''s'");
    CHECK(shell_command({"runner", "--plugin", "a b", "-o", "x.json"}) == "runner --plugin 'a b' -o x.json");
}
