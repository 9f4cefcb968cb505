// The worker's compiler (run/kernel_process.hpp): one warm process serves
// the sources of a kernel's variants, and one that an LLVM fatal error ended
// is replaced for the next source.
#include "run/kernel_process.hpp"

#include <gtest/gtest.h>

namespace lego::run {
namespace {

nlohmann::json job(const std::string& source, const std::string& scope) {
  return {{"source", source}, {"scope", scope}, {"entry", "lego_entry"}, {"target", "host"},
          {"assembly", true}, {"time", false},  {"openmp", false},       {"buffers", nlohmann::json::array()}};
}

const char* const kGood = "extern \"C\" void lego_entry(void**) {}\n";
const char* const kFatal =
    "extern \"C\" void lego_entry(void**) { asm volatile(\".bundle_align_mode 4\\n.bundle_lock\\n.bundle_unlock\\n\"); }\n";

std::string first_event(const nlohmann::json& j, std::optional<nlohmann::json>* event = nullptr) {
  KernelProcess process(j, {});
  std::optional<nlohmann::json> e = process.next_event();
  if (event) *event = e;
  return event_text(e, "event");
}

TEST(KernelProcess, SourcesAreCompiledByTheCompilerAndLoadedInTheKernelsProcess) {
  start_kernel_zygote();
  std::optional<nlohmann::json> compiled;
  ASSERT_EQ(first_event(job(kGood, "k"), &compiled), "compiled") << compiled->dump();
  EXPECT_NE(event_text(compiled, "assembly").find("lego_entry"), std::string::npos) << "the compiler's assembly reaches the event";
  EXPECT_TRUE(compiled->at("ms").is_number());
  std::optional<nlohmann::json> error;
  EXPECT_EQ(first_event(job("this is not C++", "k"), &error), "compile-error");
  EXPECT_NE(event_text(error, "message").find("error"), std::string::npos) << error->dump();
  EXPECT_EQ(first_event(job(kGood, "k")), "compiled") << "a compile error leaves the compiler serving";
}

TEST(KernelProcess, AnLlvmFatalErrorEndsOnlyTheCompilerWhichIsReplaced) {
  start_kernel_zygote();
  std::optional<nlohmann::json> fatal;
  ASSERT_EQ(first_event(job(kFatal, "same"), &fatal), "compile-error");
  EXPECT_NE(event_text(fatal, "message").find("LLVM"), std::string::npos) << fatal->dump();
  std::optional<nlohmann::json> next;
  EXPECT_EQ(first_event(job(kGood, "same"), &next), "compiled") << (next ? next->dump() : "no event");
}

}  // namespace
}  // namespace lego::run
