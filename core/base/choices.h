// A closed set of choices (an enum) and the names users type and reports
// store, in one table per enum. Inside the program: the enum. At the edges:
// parse_choice (an InputError naming the key and every accepted name) and
// to_string. Each enum writes its table once, beside it:
//
//   enum class Padding { max_length, longest };
//   template <> struct Choices<Padding> {
//     static constexpr std::pair<Padding, std::string_view> names[] = {
//         {Padding::max_length, "max_length"}, {Padding::longest, "longest"}};
//   };
//
// The first name of a value is its spelling in reports and tables; later
// entries with the same value are aliases (Lightning's "16-mixed" for
// fp16-mixed, FSDP's FULL_SHARD for zero3) that parse but never print.
// nlohmann::json writes and reads such an enum by its name (to_json /
// from_json below, found by argument-dependent lookup).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/base/errors.h"

namespace ftb {

template <class E>
struct Choices;  // specialised beside each enum: static constexpr std::pair<E, std::string_view> names[]

#define FTB_CHOICES(E, ...)                                                 \
  template <>                                                               \
  struct Choices<E> {                                                       \
    static constexpr std::pair<E, std::string_view> names[] = {__VA_ARGS__}; \
  }

template <class E, class = void>
struct has_choices : std::false_type {};
template <class E>
struct has_choices<E, std::void_t<decltype(Choices<E>::names)>> : std::true_type {};
template <class E>
using if_choice = std::enable_if_t<has_choices<E>::value, int>;

// The report's spelling of `value` (its first name).
template <class E, if_choice<E> = 0>
std::string to_string(E value) {
  for (const auto& [e, name] : Choices<E>::names)
    if (e == value) return std::string(name);
  throw std::logic_error("a value of an enum has no name in its Choices table");
}

template <class E, if_choice<E> = 0>
std::optional<E> find_choice(std::string_view text) {
  for (const auto& [e, name] : Choices<E>::names)
    if (name == text) return e;
  return std::nullopt;
}

// Every accepted name (aliases included), joined by `sep`.
template <class E, if_choice<E> = 0>
std::string choice_names(std::string_view sep = " | ") {
  std::string out;
  for (const auto& [e, name] : Choices<E>::names) {
    if (!out.empty()) out += sep;
    out += name;
  }
  return out;
}

// `text` as a choice; InputError naming `key` and listing every name otherwise.
template <class E, if_choice<E> = 0>
E parse_choice(std::string_view text, const std::string& key) {
  if (auto e = find_choice<E>(text)) return *e;
  input_error(key, "\"" + std::string(text) + "\" is not one of " + choice_names<E>(", "));
}

// A setting that may be left to ftbench: "auto" = nullopt.
template <class E, if_choice<E> = 0>
std::string setting_to_string(const std::optional<E>& value) {
  return value ? to_string(*value) : "auto";
}
template <class E, if_choice<E> = 0>
std::optional<E> parse_setting(std::string_view text, const std::string& key) {
  if (text == "auto") return std::nullopt;
  if (auto e = find_choice<E>(text)) return *e;
  input_error(key, "\"" + std::string(text) + "\" is not one of auto, " + choice_names<E>(", "));
}

template <class E, if_choice<E> = 0>
void to_json(nlohmann::json& j, E value) {
  j = to_string(value);
}
// A name that is not in the table is an InputError naming the value's key path
// as nlohmann knows it (the caller's reader names the file).
template <class E, if_choice<E> = 0>
void from_json(const nlohmann::json& j, E& value) {
  if (!j.is_string()) input_error("a choice", "expected a string, got " + j.dump());
  value = parse_choice<E>(j.get_ref<const std::string&>(), "a choice");
}

}  // namespace ftb
