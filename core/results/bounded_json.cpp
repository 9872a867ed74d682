#include "bounded_json.hpp"

#include <stdexcept>

namespace gpubench {

using nlohmann::json;

std::string without_exception_id(const std::string &what) {
    const auto end = what.find("] ");
    return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

// The parser does not recurse, but everything that walks a parsed document does: nesting
// beyond max_results_depth is refused before it is built.
json parse_bounded(const std::string &text, const std::string &name) {
    struct TooDeep {};
    const json::parser_callback_t refuse_deep = [](int depth, json::parse_event_t event, json &) {
        if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
            depth >= max_results_depth)
            throw TooDeep{};
        return true;
    };
    try {
        return json::parse(text, refuse_deep);
    } catch (const TooDeep &) {
        throw std::runtime_error(name + " nests objects or arrays more than " +
                                 std::to_string(max_results_depth) + " deep: not a results file");
    } catch (const json::exception &e) {
        throw std::runtime_error(name + " is not valid JSON (" + without_exception_id(e.what()) + ")");
    }
}

}  // namespace gpubench
