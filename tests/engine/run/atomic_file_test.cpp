// Atomic writes (issue 13, failure 3): a temporary under a predictable name
// (`<file>.tmp`) let a planted symlink redirect the write; a symlinked
// project was replaced by a regular file; failures left temporaries behind.
#include "run/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "expr/diagnostic.hpp"

namespace lego::run {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path root = fs::temp_directory_path() / ("lego-atomic-" + std::to_string(::getpid()));
  Folder() {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Folder() { fs::remove_all(root); }
};

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, APlantedTmpSymlinkIsNotFollowed) {
  Folder f;
  std::ofstream(f.root / "victim") << "precious";
  fs::create_symlink(f.root / "victim", f.root / "results.json.tmp");
  write_atomically(f.root / "results.json", "new");
  EXPECT_EQ(read(f.root / "results.json"), "new");
  EXPECT_EQ(read(f.root / "victim"), "precious");
  EXPECT_EQ(entries(f.root), 3);  // victim, the planted link, results.json: no temporary left
}

TEST(AtomicFile, ASymlinkedTargetIsWrittenThroughAndStaysALink) {
  Folder f;
  fs::create_directories(f.root / "real");
  std::ofstream(f.root / "real" / "p.lego.json") << "old";
  fs::create_symlink(f.root / "real" / "p.lego.json", f.root / "p.lego.json");
  write_atomically(f.root / "p.lego.json", "new");
  EXPECT_TRUE(fs::is_symlink(f.root / "p.lego.json"));
  EXPECT_EQ(read(f.root / "real" / "p.lego.json"), "new");
}

TEST(AtomicFile, AFolderAsTheTargetIsRefusedAndLeavesNothing) {
  Folder f;
  fs::create_directories(f.root / "out");
  try {
    write_atomically(f.root / "out", "x");
    ADD_FAILURE() << "wrote over a folder";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entries(f.root), 1);  // no out.tmp
  try {
    write_atomically(f.root / "missing" / "file", "x");
    ADD_FAILURE() << "wrote into a folder that does not exist";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("temporary file"), std::string::npos) << e.what();
  }
}

TEST(AtomicFile, AFolderIsWrittenWholeOrNotAtAll) {
  Folder f;
  // A file of the set that is a folder: found before the first write.
  fs::create_directories(f.root / "out" / "b.json");
  try {
    write_folder((f.root / "out").string(), {{"a.cu", "a"}, {"b.json", "b"}}, true);
    ADD_FAILURE() << "wrote a folder with a file it could not write";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("b.json: it is a folder; nothing was written"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(f.root / "out" / "a.cu"));
  // Nor through a link among the folders above it.
  fs::create_directories(f.root / "elsewhere");
  fs::create_symlink(f.root / "elsewhere", f.root / "link");
  try {
    write_folder((f.root / "link" / "sub").string(), {{"a.cu", "a"}}, false);
    ADD_FAILURE() << "wrote through a linked parent";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("link is a link; give the real path"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(f.root / "elsewhere" / "sub"));
}

TEST(AtomicFile, AnExistingFileKeepsItsMode) {
  Folder f;
  const fs::path file = f.root / "shared.json";
  std::ofstream(file) << "old";
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  write_atomically(file, "new");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(read(file), "new");
}

}  // namespace
}  // namespace lego::run
