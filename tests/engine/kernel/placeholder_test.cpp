// The template's placeholders parsed into typed values, and their mistakes
// located at line:column with a caret, before any kernel is bound.
#include "kernel/placeholder.hpp"

#include <gtest/gtest.h>

namespace lego::kernel {
namespace {

Placeholder only(const std::string& text) {
  const auto all = parse_placeholders(text, "t.cpp");
  EXPECT_EQ(all.size(), 1u) << text;
  return all.at(0);
}

template <class Form>
Form form_of(const std::string& text) {
  const Placeholder p = only(text);
  const Form* f = std::get_if<Form>(&p.form);
  EXPECT_NE(f, nullptr) << text << " parsed as another form (index " << p.form.index() << ")";
  return f ? *f : Form{};
}

std::string error_of(const std::string& text) {
  try {
    parse_placeholders(text, "t.cpp");
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Placeholders, EachFormIsItsOwnType) {
  const auto access = form_of<placeholder::Access>("{{ A[i, 3] }}");
  EXPECT_EQ(access.name, "A");
  EXPECT_EQ(access.indices, (std::vector<std::string>{"i", "3"}));
  EXPECT_FALSE(access.shared);
  EXPECT_EQ(form_of<placeholder::Access>("{{ A.apply(i, k) }}").indices, (std::vector<std::string>{"i", "k"}));
  const auto shared = form_of<placeholder::Access>("{{ smem S[r, c] }}");
  EXPECT_TRUE(shared.shared);
  EXPECT_EQ(shared.name, "S");

  const auto inv = form_of<placeholder::Inverse>("{{ pid_m, pid_n = L.inv(pid) }}");
  EXPECT_EQ(inv.names, (std::vector<std::string>{"pid_m", "pid_n"}));
  EXPECT_EQ(inv.layout, "L");
  EXPECT_EQ(inv.indices, (std::vector<std::string>{"pid"}));

  const auto loop = form_of<placeholder::For>("{{ for i, j in L parallel simd flat=FLAT }}");
  EXPECT_EQ(loop.names, (std::vector<std::string>{"i", "j"}));
  EXPECT_EQ(loop.layout, "L");
  EXPECT_TRUE(loop.parallel && loop.simd);
  ASSERT_TRUE(loop.flat.has_value());
  EXPECT_EQ(evaluate(*loop.flat, {{"FLAT", 3}}), 3);
  EXPECT_FALSE(form_of<placeholder::For>("{{ for x in L }}").flat.has_value());

  form_of<placeholder::End>("{{ end }}");
  const auto move = form_of<placeholder::Move>("{{ stream B[j, i] = A[i, j] }}");
  EXPECT_TRUE(move.stream);
  EXPECT_EQ(move.dst.name, "B");
  EXPECT_EQ(move.src.indices, (std::vector<std::string>{"i", "j"}));
  EXPECT_EQ(move.dst_text, "B[j, i]");
  EXPECT_FALSE(form_of<placeholder::Move>("{{ B[j] = A[j] }}").stream);

  EXPECT_EQ(form_of<placeholder::Size>("{{ A.size }}").name, "A");
  EXPECT_EQ(form_of<placeholder::Stride>("{{ B.stride(1) }}").dimension, 1u);
  EXPECT_EQ(form_of<placeholder::Run>("{{ X.run(0) }}").name, "X");
  EXPECT_EQ(evaluate(form_of<placeholder::Constant>("{{ N // BM + 1 }}").expression, {{"N", 64}, {"BM", 8}}), 9);
  // A comparison is an expression, not an assignment.
  form_of<placeholder::Constant>("{{ N == 4 }}");
}

TEST(Placeholders, KnowWhereTheyAre) {
  const auto all = parse_placeholders("int x;\n  y = {{  A[i] }} + {{N}};\n", "t.cpp");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].line, 2);
  EXPECT_EQ(all[0].column, 7);
  EXPECT_EQ(all[0].text, "A[i]");
  EXPECT_EQ(all[0].open, 13u);
  EXPECT_EQ(all[0].at, 17u);     // the trimmed text
  EXPECT_EQ(all[0].close, 24u);  // past the "}}"
  EXPECT_EQ(all[1].column, 21);
}

TEST(Placeholders, MistakesHaveLineColumnAndACaret) {
  const std::string bad_index = error_of("x\n  y = {{ A[i+1, j] }};");
  EXPECT_NE(bad_index.find("t.cpp:2:10: error: index \"i+1\" must be a name or an integer"), std::string::npos) << bad_index;
  EXPECT_NE(bad_index.find("    y = {{ A[i+1, j] }};\n           ^" + std::string(8, '~') + "\n"), std::string::npos) << bad_index;
  // An expression's error points into the expression, also behind flat=.
  EXPECT_NE(error_of("{{ N +* 2 }}").find("t.cpp:1:7: error: expected an expression"), std::string::npos) << error_of("{{ N +* 2 }}");
  const std::string flat = error_of("{{ for i, j in L flat=N+ }}");
  EXPECT_NE(flat.find("t.cpp:1:25:"), std::string::npos) << flat;
  EXPECT_NE(error_of("a {{ N").find("t.cpp:1:3: error: this '{{' has no closing '}}'"), std::string::npos);
  EXPECT_NE(error_of("{{ A[i,\n j] }}").find("t.cpp:1:1: error: a placeholder must fit on one line"), std::string::npos);
  EXPECT_NE(error_of("{{ for i, j in L fast }}").find("unknown loop option \"fast\""), std::string::npos);
  EXPECT_NE(error_of("{{ for i j }}").find("expected for NAMES in LAYOUT"), std::string::npos);
  EXPECT_NE(error_of("{{ for 1i in L }}").find("expected names before 'in', found \"1i\""), std::string::npos);
  EXPECT_NE(error_of("{{ 1 x, b = L.inv(x) }}").find("expected names to declare before '=', found \"1 x\""), std::string::npos);
  EXPECT_NE(error_of("{{ a = L.inv(x }}").find("expected NAME.inv(index) after '='"), std::string::npos);
  EXPECT_NE(error_of("{{ A.stride(-1) }}").find("expected NAME.stride(index position)"), std::string::npos);
  EXPECT_NE(error_of("{{ A.run(x) }}").find("expected NAME.run(index position)"), std::string::npos);
  EXPECT_NE(error_of("{{ smem S }}").find("expected smem NAME[indices]"), std::string::npos);
  EXPECT_NE(error_of("{{ B[i] = A] }}").find("expected TENSOR[indices] = TENSOR[indices]"), std::string::npos)
      << error_of("{{ B[i] = A] }}");
  // A misspelt keyword is not taken for a tensor named "stram B".
  EXPECT_NE(error_of("{{ stram B[j, i] = A[i, j] }}").find("t.cpp:1:4: error: \"stram B\" is not a tensor name"), std::string::npos)
      << error_of("{{ stram B[j, i] = A[i, j] }}");
  EXPECT_EQ(error_of("no placeholders { { } }"), "no error");
}

}  // namespace
}  // namespace lego::kernel
