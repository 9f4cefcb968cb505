// The worker's compiler (run/kernel_process.hpp): one warm process serves
// the sources of a kernel's variants, and one that an LLVM fatal error ended
// is replaced for the next source.
#include "run/kernel_process.hpp"

#include <gtest/gtest.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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

// OpenMP code: libomp starts before the sandbox makes the files read-only
// (it registers itself with a file in /dev/shm, and would stop with a fatal
// error), and the zygote removes that file once the killed process is gone.
TEST(KernelProcess, OpenMpRunsUnderReadOnlyFilesAndLeavesNoRegistration) {
  start_kernel_zygote();
  nlohmann::json j =
      job("#include <omp.h>\n"
          "extern \"C\" void lego_entry(void** args) {\n"
          "  int* seen = static_cast<int*>(args[0]);\n"
          "  #pragma omp parallel\n"
          "  { if (omp_get_thread_num() == 0) *seen = omp_get_num_threads(); }\n"
          "}\n",
          "openmp");
  j["openmp"] = true;
  // Timed, the process waits for go() after "called" instead of exiting: the zygote then removes the registration
  // only once finish() has killed it (CI once checked after the process had exited and the file was already gone).
  j["time"] = true;
  j["buffers"] = nlohmann::json::array({{{"type", "int32_t"}, {"count", 1}, {"name", "seen"}}});
  Buffer seen(Element::I32, 1, Buffer::Sharing::Shared);
  static_cast<std::int32_t*>(seen.data())[0] = 0;
  KernelProcess process(j, {&seen});
  std::optional<nlohmann::json> event = process.next_event();
  ASSERT_EQ(event_text(event, "event"), "compiled") << (event ? event->dump() : "no event");
  // Whole where the kernel has Landlock (Debian 12's has), else it says what is missing.
  if (syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION) >= 1)
    EXPECT_EQ(event_text(event, "sandbox"), "");
  else
    EXPECT_NE(event_text(event, "sandbox").find("Landlock"), std::string::npos) << event->dump();
  event = process.next_event();
  ASSERT_EQ(event_text(event, "event"), "called") << (event ? event->dump() : "no event");
  EXPECT_GE(static_cast<std::int32_t*>(seen.data())[0], 1);
  const std::string registration = "/dev/shm/__KMP_REGISTERED_LIB_" + std::to_string(process.pid()) + "_" + std::to_string(getuid());
  EXPECT_TRUE(std::filesystem::exists(registration)) << "libomp registers the process while it runs";
  EXPECT_EQ(process.finish(), "");
  EXPECT_FALSE(std::filesystem::exists(registration)) << "the registration outlived the process";
}

// Review of issue 29: a worker killed at a timeout left its own and its
// kernel's registrations in /dev/shm. lego removes those of processes that
// are gone, never a live one's.
TEST(KernelProcess, RegistrationsOfProcessesThatAreGoneAreRemoved) {
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const auto file = [](pid_t pid) { return "/dev/shm/__KMP_REGISTERED_LIB_" + std::to_string(pid) + "_" + std::to_string(getuid()); };
  std::ofstream(file(gone)) << "a libomp's";
  const bool ours_existed = std::filesystem::exists(file(getpid()));
  if (!ours_existed) std::ofstream(file(getpid())) << "ours";
  forget_openmp_registrations_of_the_dead();
  EXPECT_FALSE(std::filesystem::exists(file(gone)));
  EXPECT_TRUE(std::filesystem::exists(file(getpid())));
  if (!ours_existed) std::filesystem::remove(file(getpid()));
}

}  // namespace
}  // namespace lego::run
