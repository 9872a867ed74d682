#include "text_format.hpp"

#include <catch2/catch.hpp>

#include <string>

using gpubench::format_text;

TEST_CASE("format_text: printf's text, of any length", "[text]") {
    CHECK(format_text("%+.0f%%", 12.4) == "+12%");
    CHECK(format_text("%5u %s", 7u, "x") == "    7 x");
    CHECK(format_text("%s", "").empty());
    const std::string long_text(5000, 'a');  // beyond any fixed buffer: nothing cut
    CHECK(format_text("<%s>", long_text.c_str()) == "<" + long_text + ">");
}
