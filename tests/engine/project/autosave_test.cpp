// The app's autosave of unsaved project edits round-trips, and a damaged
// file is refused with the JSON path of what is wrong (it used to throw
// nlohmann's type_error out of the recovery when "file" was not a string).
#include "project/autosave.hpp"

#include <gtest/gtest.h>

namespace lego::project {
namespace {

TEST(Autosave, RoundTripsThePathAndTheEditedText) {
  const Autosave edits{"/home/me/p \"q\".lego.json", "{\n  \"kernels\": []\n}\n"};
  std::string why;
  const auto back = read_autosave(autosave_payload(edits), why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->file, edits.file);
  EXPECT_EQ(back->json, edits.json);
}

TEST(Autosave, ADamagedFileIsRefusedWithItsPath) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "$: not a JSON object"},
      {"[1, 2]", "$: not a JSON object"},
      {R"({"json": "{}"})", "$.file: expected a string"},
      {R"({"file": 7, "json": "{}"})", "$.file: expected a string"},
      {R"({"file": "p.lego.json", "json": null})", "$.json: expected a string"},
  };
  for (const auto& [text, expected] : cases) {
    std::string why;
    EXPECT_FALSE(read_autosave(text, why)) << text;
    EXPECT_EQ(why, expected) << text;
  }
}

}  // namespace
}  // namespace lego::project
