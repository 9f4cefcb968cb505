// The studio's table models without their views: the variants table's rows
// (VariantsModel, sorted and filtered by VariantsFilter) and lego suggest's
// ranked layouts (SuggestionsModel), from typed rows made here; and the
// Sizes row's values (parameter_values), parsed and checked without widgets.
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <QtTest>
#include <memory>

#include "expr/parser.hpp"
#include "studio/parameter_values.hpp"
#include "studio/suggestions_model.hpp"
#include "studio/variants_model.hpp"

using lego::run::Outcome;
using lego::run::Status;
using lego::studio::SuggestionsModel;
using lego::studio::VariantRow;
using lego::studio::VariantsFilter;
using lego::studio::VariantsModel;

class StudioModelsTest : public QObject {
  Q_OBJECT
 private slots:
  void aRowIsFormattedFromItsResult();
  void aRowWithoutAResultSaysWhy();
  void aBaselineIsItalicAndSaysWhatItIs();
  void aStaleRowIsGreyedUntilItsNextResult();
  void aNoteStandsInTheStatusUntilTheNextResult();
  void theFilterSortsNumbersAsNumbersAndHidesUnverifiedVariants();
  void suggestionsAreRankedRowsOfTypedCandidates();
  void longIdsShowWhatSetsAVariantApart();
  void sizesAreTypedAsAProjectWritesThem();
  void sizesNoConstraintAdmitsSayWhichOne();
};

namespace {

std::shared_ptr<Outcome> result(const std::string& id, Status status, double ms, bool verified = true) {
  auto o = std::make_shared<Outcome>();
  o->kernel = "k";
  o->id = id;
  o->status = status;
  o->verified = verified;
  o->ms = ms;
  o->gbs = ms > 0 ? 10 / ms : 0;
  return o;
}

// A row as the panel makes one: a baseline by its id.
VariantRow row(const QString& id, std::shared_ptr<const Outcome> outcome, const QString& invalid = {}) {
  VariantRow r;
  r.id = id;
  r.baseline = id.startsWith("baseline:");
  r.invalid = invalid;
  r.outcome = std::move(outcome);
  return r;
}

QString text(const QAbstractItemModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.index(row, column).data(role).toString();
}

}  // namespace

void StudioModelsTest::aRowIsFormattedFromItsResult() {
  auto o = result("A=row,N=64", Status::Ok, 2.0);
  o->cached = true;
  o->repetitions = 5;
  o->ms_min = 1.8;
  o->ms_max = 2.4;  // a spread of 30% of the median
  o->percent_of_roof = 41.26;
  o->bank_ways = 32;
  o->coalesced_percent = 100;
  o->lines_per_iteration = 0.125;
  o->cuda = lego::run::CudaResources{};
  o->cuda->registers = 40;
  o->verified_at = "N=16";
  VariantsModel model;
  model.setRows({row("A=row,N=64", o)});
  QCOMPARE(model.rowCount(), 1);
  QCOMPARE(text(model, 0, VariantsModel::Variant), QString("A=row,N=64"));
  QCOMPARE(model.index(0, VariantsModel::Status).data(VariantsModel::IdRole).toString(), QString("A=row,N=64"));
  QCOMPARE(text(model, 0, VariantsModel::Status), QString("ok (cached)"));
  QVERIFY(text(model, 0, VariantsModel::Status, Qt::ToolTipRole).contains("results cache"));
  QCOMPARE(text(model, 0, VariantsModel::Verified), QString::fromUtf8("✓ smaller"));
  QVERIFY(text(model, 0, VariantsModel::Verified, Qt::ToolTipRole).contains("N=16"));
  QCOMPARE(text(model, 0, VariantsModel::Ms), QString::fromUtf8("2.0000 ±15%"));
  QVERIFY(text(model, 0, VariantsModel::Ms, Qt::ToolTipRole).startsWith("median of 5 repetitions"));
  QCOMPARE(model.index(0, VariantsModel::Ms).data(VariantsModel::SortRole).toDouble(), 2.0);
  QCOMPARE(text(model, 0, VariantsModel::GBs), QString("5.00"));
  QCOMPARE(text(model, 0, VariantsModel::Roof), QString("41.3"));
  QCOMPARE(text(model, 0, VariantsModel::BankWays), QString("32"));
  QCOMPARE(text(model, 0, VariantsModel::Coalesced), QString("100"));
  QCOMPARE(text(model, 0, VariantsModel::Lines), QString("0.125"));
  QCOMPARE(text(model, 0, VariantsModel::Registers), QString("40"));
  QCOMPARE(model.index(0, VariantsModel::Ms).data(Qt::TextAlignmentRole).toInt(), int(Qt::AlignRight | Qt::AlignVCenter));
  QCOMPARE(text(model, 0, VariantsModel::Variant, Qt::ToolTipRole), QString("A=row,N=64"));  // the whole id, however it is elided
  QCOMPARE(model.headerData(VariantsModel::BankWays, Qt::Horizontal).toString(), QString("bank ways"));
  QVERIFY(model.headerData(VariantsModel::BankWays, Qt::Horizontal, Qt::ToolTipRole).toString().contains("bank conflict"));
}

void StudioModelsTest::aRowWithoutAResultSaysWhy() {
  auto wrong = result("MODE=3", Status::Wrong, -1, false);
  wrong->message = "differs at element 7";
  VariantsModel model;
  model.setRows({row("MODE=0", nullptr), row("MODE=9", nullptr, "T does not divide N"), row("MODE=3", wrong)});
  QCOMPARE(text(model, 0, VariantsModel::Status), QString("not run"));
  QCOMPARE(text(model, 0, VariantsModel::Verified), QString());
  QCOMPARE(text(model, 0, VariantsModel::Ms), QString());
  QCOMPARE(model.index(0, VariantsModel::Ms).data(VariantsModel::SortRole).toDouble(), 1e300);
  QCOMPARE(text(model, 1, VariantsModel::Status), QString("invalid"));
  QCOMPARE(text(model, 1, VariantsModel::Status, Qt::ToolTipRole), QString("T does not divide N"));
  QCOMPARE(text(model, 2, VariantsModel::Status), QString("wrong"));
  QCOMPARE(text(model, 2, VariantsModel::Verified), QString::fromUtf8("✗"));
  QCOMPARE(text(model, 2, VariantsModel::Verified, Qt::ToolTipRole), QString("Not verified: differs at element 7"));
  QCOMPARE(text(model, 2, VariantsModel::GBs), QString());  // untimed: no rates
  QCOMPARE(model.rowOf("MODE=3"), 2);
  QCOMPARE(model.rowOf("MODE=4"), -1);
  QVERIFY(!model.setOutcome(result("MODE=4", Status::Ok, 1)));  // no row of that id: the panel adds one
  QVERIFY(model.setOutcome(result("MODE=0", Status::Ok, 1)));
  QCOMPARE(text(model, 0, VariantsModel::Status), QString("ok"));
  // Issue 61: a variant whose code another row already ran got a red ✗,
  // as if it had failed; it was not run, and its result is the other's.
  auto duplicate = result("MODE=5", Status::Duplicate, -1, false);
  duplicate->duplicate_of = "MODE=0";
  model.setRows({row("MODE=5", duplicate)});
  QCOMPARE(text(model, 0, VariantsModel::Verified), QString::fromUtf8("–"));
}

void StudioModelsTest::aBaselineIsItalicAndSaysWhatItIs() {
  auto copy = result("baseline:copy", Status::Ok, 1.0);
  copy->baseline = true;
  copy->bank_ways = 1;  // a baseline is not traced: its analysis columns stay empty
  VariantsModel model;
  model.setRows({row("baseline:copy", copy)});
  QVERIFY(model.index(0, VariantsModel::Variant).data(Qt::FontRole).value<QFont>().italic());
  QVERIFY(model.index(0, VariantsModel::Variant).data(VariantsModel::BaselineRole).toBool());
  for (int c = 0; c < VariantsModel::Columns; ++c)
    QVERIFY(text(model, 0, c, Qt::ToolTipRole).startsWith("Baseline, timed in the same sweep"));
  QCOMPARE(text(model, 0, VariantsModel::BankWays), QString());
  QCOMPARE(text(model, 0, VariantsModel::Ms), QString("1.0000"));
}

void StudioModelsTest::aStaleRowIsGreyedUntilItsNextResult() {
  VariantsModel model;
  model.setRows({row("MODE=0", result("MODE=0", Status::Ok, 1))});
  QVERIFY(!model.index(0, VariantsModel::Status).data(Qt::ForegroundRole).isValid());
  QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
  model.setStale(0, true);
  QCOMPARE(changed.size(), 1);
  QVERIFY(model.row(0).stale);
  QVERIFY(model.index(0, 0).data(VariantsModel::StaleRole).toBool());
  const QColor grey = QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
  for (int c = 0; c < VariantsModel::Columns; ++c) {
    QCOMPARE(model.index(0, c).data(Qt::ForegroundRole).value<QColor>(), grey);
    QVERIFY(text(model, 0, c, Qt::ToolTipRole).startsWith("From an earlier sweep: not run again yet."));
  }
  QCOMPARE(text(model, 0, VariantsModel::Status, Qt::ToolTipRole), QString("From an earlier sweep: not run again yet."));
  model.setOutcome(result("MODE=0", Status::Ok, 0.5));
  QVERIFY(!model.row(0).stale);
  QVERIFY(!model.index(0, VariantsModel::Status).data(Qt::ForegroundRole).isValid());
  QVERIFY(!model.index(0, VariantsModel::Status).data(Qt::ToolTipRole).isValid());
  QCOMPARE(text(model, 0, VariantsModel::Ms), QString("0.5000"));
}

void StudioModelsTest::aNoteStandsInTheStatusUntilTheNextResult() {
  VariantsModel model;
  model.setRows({row("MODE=0", nullptr), row("MODE=1", nullptr, "too large")});
  model.setNote(0, "submitting");
  model.setNote(1, "queued (Slurm)", "its Slurm array task is PENDING");
  QCOMPARE(text(model, 0, VariantsModel::Status), QString("submitting"));
  QCOMPARE(text(model, 1, VariantsModel::Status), QString("queued (Slurm)"));
  QCOMPARE(text(model, 1, VariantsModel::Status, Qt::ToolTipRole), QString("its Slurm array task is PENDING"));
  model.setNote(1, "submitting");  // no tip of its own: the row's own shows
  QCOMPARE(text(model, 1, VariantsModel::Status, Qt::ToolTipRole), QString("too large"));
  auto imported = result("MODE=0", Status::Imported, 1);
  model.setOutcome(imported);
  QCOMPARE(text(model, 0, VariantsModel::Status), QString("imported"));
  QVERIFY(model.row(0).note.isEmpty());
}

void StudioModelsTest::theFilterSortsNumbersAsNumbersAndHidesUnverifiedVariants() {
  auto baseline = result("baseline:copy", Status::Ok, 0.5);
  baseline->baseline = true;
  VariantsModel model;
  // 10 ms sorts after 9 ms (as text it would not); the unrun variant sorts after every number.
  model.setRows({row("T=8", result("T=8", Status::Ok, 10)), row("T=4", nullptr), row("T=16", result("T=16", Status::Ok, 9)),
                 row("T=2", result("T=2", Status::Wrong, 1, false)), row("baseline:copy", baseline)});
  VariantsFilter shown;
  shown.setSourceModel(&model);
  const auto ids = [&] {
    QStringList list;
    for (int r = 0; r < shown.rowCount(); ++r) list << shown.index(r, 0).data(VariantsModel::IdRole).toString();
    return list;
  };
  shown.sort(VariantsModel::Ms, Qt::AscendingOrder);
  QCOMPARE(ids(), (QStringList{"baseline:copy", "T=2", "T=16", "T=8", "T=4"}));
  shown.sort(VariantsModel::Ms, Qt::DescendingOrder);
  QCOMPARE(ids().first(), QString("T=4"));
  shown.sort(VariantsModel::Variant, Qt::AscendingOrder);
  QCOMPARE(ids(), (QStringList{"T=16", "T=2", "T=4", "T=8", "baseline:copy"}));
  QCOMPARE(shown.headerData(0, Qt::Vertical).toInt(), 1);  // numbered as shown, not as the model keeps them
  shown.setVerifiedOnly(true);
  QCOMPARE(ids(), (QStringList{"T=16", "T=8", "baseline:copy"}));
  model.setOutcome(result("T=4", Status::Ok, 3));  // verified now: shown without a rebuild, in its place
  QCOMPARE(ids(), (QStringList{"T=16", "T=4", "T=8", "baseline:copy"}));
  shown.setVerifiedOnly(false);
  QCOMPARE(shown.rowCount(), 5);
}

void StudioModelsTest::suggestionsAreRankedRowsOfTypedCandidates() {
  auto s = std::make_shared<lego::run::Suggestions>();
  s->buffer = "S";
  lego::run::LayoutCandidate padded, row;
  padded.name = "padded+1";
  padded.text = "OrderBy(Row(32, 33))";
  padded.worst_ways = 1;
  padded.extra_elements = 32;
  padded.ops = 3;
  padded.verified = true;
  padded.verification = "equal";
  padded.reason = "conflict-free";
  row.name = "project:row";
  row.worst_ways = 32;
  row.excess_wavefronts = 992;
  row.reason = "32-way: a warp reads one bank";
  s->ranked = {padded, row};
  SuggestionsModel model;
  QCOMPARE(model.rowCount(), 0);
  model.setSuggestions(s);
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(text(model, 0, SuggestionsModel::Rank), QString("1"));
  QCOMPARE(text(model, 1, SuggestionsModel::Rank), QString("2"));
  QCOMPARE(text(model, 0, SuggestionsModel::Layout), QString("padded+1"));
  QCOMPARE(text(model, 0, SuggestionsModel::Layout, Qt::ToolTipRole), QString("OrderBy(Row(32, 33))"));
  QCOMPARE(text(model, 0, SuggestionsModel::Ways), QString("1"));
  QCOMPARE(text(model, 1, SuggestionsModel::Ways), QString("32"));
  QCOMPARE(text(model, 1, SuggestionsModel::Excess), QString("992"));
  QCOMPARE(text(model, 1, SuggestionsModel::Ops), QString("-"));  // -1: not scored
  QCOMPARE(text(model, 0, SuggestionsModel::Verified), QString::fromUtf8("✓"));
  QCOMPARE(text(model, 1, SuggestionsModel::Verified), QString());  // not run
  QVERIFY(text(model, 1, SuggestionsModel::Verified, Qt::ToolTipRole).startsWith("kernel not run"));
  QVERIFY(text(model, 1, SuggestionsModel::Why).contains("32-way"));
  QCOMPARE(model.candidate(1).name, std::string("project:row"));
  QCOMPARE(model.headerData(SuggestionsModel::Memory, Qt::Horizontal).toString(), QString("+mem"));
}

// Issue 30: matmul's ids are 80 characters, most of them the same in every
// row (M=2048,N=2048,K=2048,...). The cell shows the rest; the tooltip and
// IdRole keep the whole id, and the header says what every row shares.
void StudioModelsTest::longIdsShowWhatSetsAVariantApart() {
  VariantsModel model;
  model.setRows({row("A=row,M=2048,N=2048,BM=6", nullptr), row("A=col,M=2048,N=2048,BM=8", nullptr), row("baseline:blas", nullptr)});
  QCOMPARE(text(model, 0, VariantsModel::Variant), QString("A=row,BM=6"));
  QCOMPARE(text(model, 1, VariantsModel::Variant), QString("A=col,BM=8"));
  QCOMPARE(text(model, 2, VariantsModel::Variant), QString("baseline:blas"));
  QCOMPARE(text(model, 0, VariantsModel::Variant, Qt::ToolTipRole), QString("A=row,M=2048,N=2048,BM=6"));
  QCOMPARE(text(model, 0, VariantsModel::Variant, VariantsModel::IdRole), QString("A=row,M=2048,N=2048,BM=6"));
  QVERIFY(model.headerData(VariantsModel::Variant, Qt::Horizontal, Qt::ToolTipRole).toString().contains("M=2048, N=2048"));
  QCOMPARE(model.shortId("A=col,M=2048,N=2048,BM=8"), QString("A=col,BM=8"));
  QCOMPARE(lego::studio::parts_not_in("A=row,M=2048,N=2048,BM=6", "A=row,M=2048,N=2048,BM=8"), QString("BM=6"));
  model.setRows({row("A=row,M=2048", nullptr)});  // one variant: nothing is shared with another
  QCOMPARE(text(model, 0, VariantsModel::Variant), QString("A=row,M=2048"));
}

// The parameters row takes what a project's "parameters" take, and writes
// the values back the way it reads them.
void StudioModelsTest::sizesAreTypedAsAProjectWritesThem() {
  using lego::studio::parse_values;
  using lego::studio::values_text;
  using Values = std::vector<std::int64_t>;
  QCOMPARE(parse_values("1024").values, Values{1024});
  QCOMPARE(parse_values(" 16, 32 ").values, (Values{16, 32}));
  QCOMPARE(parse_values("8..64 x2").values, (Values{8, 16, 32, 64}));
  QCOMPARE(parse_values("0..12 +4").values, (Values{0, 4, 8, 12}));
  QCOMPARE(parse_values("1..4").values, (Values{1, 2, 3, 4}));
  QVERIFY(parse_values("abc").error.find("not an integer") != std::string::npos);
  QVERIFY(parse_values("16,,32").error.find("not an integer") != std::string::npos);
  QVERIFY(parse_values("64..8").error.find("greater") != std::string::npos);
  QVERIFY(!parse_values("8..64 x1").error.empty());
  QVERIFY(!parse_values("8..64 y2").error.empty());
  QVERIFY(!parse_values("").error.empty());
  QCOMPARE(values_text({8, 16, 32, 64}), std::string("8..64 x2"));
  QCOMPARE(values_text({0, 4, 8}), std::string("0..8 +4"));
  QCOMPARE(values_text({1, 2, 3}), std::string("1..3"));
  QCOMPARE(values_text({0, 1}), std::string("0, 1"));
  QCOMPARE(values_text({8192}), std::string("8192"));
  for (const char* typed : {"8..64 x2", "0, 1", "3..9 +3", "5, 3, 9"})
    QCOMPARE(values_text(parse_values(typed).values), std::string(typed));
}

// Values that no constraint admits are refused with the constraint named
// and an example; values some variants meet are fine.
void StudioModelsTest::sizesNoConstraintAdmitsSayWhichOne() {
  lego::kernel::KernelSpec spec;
  spec.name = "t";
  spec.parameters = {{"N", {100}}, {"T", {16, 32}}};
  spec.constraints = {{"T > 0", lego::parse_expression("T > 0")}, {"N % T == 0", lego::parse_expression("N % T == 0")}};
  const std::string why = lego::kernel::why_no_variant(spec, lego::target::host());
  QVERIFY2(why.find("N % T == 0 holds for none") != std::string::npos && why.find("N=100") != std::string::npos, why.c_str());
  QCOMPARE(lego::kernel::why_no_variant(lego::studio::with_values(spec, {{"N", {96}}}), lego::target::host()), std::string());
  // T == 0: "N % T" is undefined, and T > 0 is what fails.
  const std::string zero = lego::kernel::why_no_variant(lego::studio::with_values(spec, {{"T", {0}}}), lego::target::host());
  QVERIFY2(zero.find("T > 0") != std::string::npos, zero.c_str());
}

QTEST_MAIN(StudioModelsTest)
#include "studio_models_test.moc"
